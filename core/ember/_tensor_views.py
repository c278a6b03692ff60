"""Tensor methods and properties for views and shapes that read best in Python (T, mT, H, mH) and
the overloads picked in Python: view (a shape or a dtype) and split (an int size or a list of sizes)."""
from . import _C



class ViewMethods:
    @property
    def T(self):
        """All dims reversed (PyTorch deprecates this beyond 2-D; here it simply reverses)."""
        return self.permute(tuple(range(self.dim() - 1, -1, -1)))

    @property
    def mT(self):
        """The last two dims swapped: the transpose of each matrix in a batch."""
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def H(self):
        """The conjugate transpose of a matrix (0-D and 2-D tensors only)."""
        if self.dim() not in (0, 2):
            hint = " For batches of matrices, consider using tensor.mH" if self.dim() > 2 else ""
            raise RuntimeError(
                f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.{hint}"
            )
        return self.conj() if self.dim() == 0 else self.transpose(0, 1).conj()

    @property
    def mH(self):
        """The conjugate transpose of each matrix in a batch."""
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. "
                               f"Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1).conj()

    def split(self, split_size, dim=0):
        """Views of `split_size` elements along dim, or of each size in a list of sizes."""
        return split(self, split_size, dim)


def split(tensor, split_size_or_sections, dim=0):
    """ember.split: an int splits into pieces of that size (the last may be smaller); a list or
    tuple gives the size of every piece (they must add up to the size of dim)."""
    s = split_size_or_sections
    if isinstance(s, (list, tuple)):  # the binding checks each size ('a' or 2.5 named, not int()'s error)
        return _C.split_with_sizes(tensor, list(s), dim)
    if isinstance(s, _C.TensorBase) and s.dim() == 1:
        return _C.split_with_sizes(tensor, [int(x) for x in s], dim)
    return _C.split(tensor, s, dim)
