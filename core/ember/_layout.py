"""ember.layout: how a tensor's elements are stored (PyTorch's torch.layout): strided (dense memory),
sparse_coo (indices and values of the specified elements) and sparse_csr (compressed rows)."""

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr"]


class layout:
    """One of the storage layouts; compared by identity, printed as `ember.NAME`."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"ember.{self._name}"

    def __reduce__(self):  # pickles as the module-level singleton
        return self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
