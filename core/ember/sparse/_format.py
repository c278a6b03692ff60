"""repr of sparse tensors in PyTorch's form: the member tensors printed as nested tensor(...)s, then
size, nnz, a non-default dtype, the layout and the autograd state."""
from .. import _C
from .._tensor_str import _body

__all__ = ["sparse_repr"]

_OUTER = "tensor("
_MARGIN = " " * len(_OUTER)


def _member(name, t, first):
    """`name=tensor([...])` with continuation lines indented under their brackets."""
    t = t.detach()
    lead = 0 if first else len(_MARGIN)
    indent = len(_OUTER) + len(name) + 1 + len(_OUTER)  # where the member's first '[' stands
    if t.numel() == 0:
        body = f"[], size={tuple(t.shape)}"
    else:
        body = _body(t, indent)
    return " " * lead + f"{name}=tensor({body})"


def _dtype_suffix(t):
    default = _C.get_default_dtype()
    default_complex = _C.complex128 if default == _C.float64 else _C.complex64
    return [] if t.dtype in (default, default_complex, _C.int64, _C.bool) else [f"dtype={t.dtype}"]


def _grad_suffix(t):
    if t.grad_fn is not None:
        return [f"grad_fn=<{t.grad_fn.name()}>"]
    return ["requires_grad=True"] if t.requires_grad else []


def sparse_repr(t):
    size = f"size={tuple(t.shape)}, nnz={t._nnz()}"
    if t.is_sparse:
        lines = [_member("indices", t._idx, True), _member("values", t._vals, False),
                 _MARGIN + ", ".join([size] + _dtype_suffix(t) + [f"layout={t.layout}"] + _grad_suffix(t))]
    else:
        lines = [_member("crow_indices", t._crow, True), _member("col_indices", t._col, False),
                 ", ".join([_member("values", t._vals, False), size] + _dtype_suffix(t)),
                 _MARGIN + ", ".join([f"layout={t.layout}"] + _grad_suffix(t))]
    return _OUTER + ",\n".join(lines) + ")"
