"""einsum and tensordot as PyTorch spells them in Python (operands as varargs or a list, the
sublist form, dims as an int or a pair of lists) over the C++ ops _C.einsum and _C.tensordot."""
from . import _C

__all__ = ["einsum", "tensordot"]


def _letter(i):
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < 52:
        raise ValueError(f"einsum(): subscript in subscript list is not within the valid range [0, 52), got {i!r}")
    return chr(ord("A") + i) if i < 26 else chr(ord("a") + i - 26)


def _sublist(sub):
    return "".join("..." if s is Ellipsis else _letter(s) for s in sub)


def einsum(*args):
    """einsum(equation, *operands), einsum(equation, [operands]), or the sublist form
    einsum(op1, sublist1, op2, sublist2, ..., [sublist_out]) with dims as ints in [0, 52) and
    Ellipsis."""
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand, "
                        "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = operands[0]
    else:
        n = len(args) // 2
        operands = [args[2 * i] for i in range(n)]
        equation = ",".join(_sublist(args[2 * i + 1]) for i in range(n))
        if len(args) % 2:
            equation += "->" + _sublist(args[-1])
    return _C.einsum(equation, list(operands))


def tensordot(a, b, dims=2, out=None):
    """Sums the products of a's and b's elements over dims: the last `dims` of a with the first
    `dims` of b (an int), or a's dims dims[0] with b's dims dims[1] (a pair of lists or ints)."""
    if isinstance(dims, _C.TensorBase):
        dims = dims.tolist()
    if isinstance(dims, int) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    else:
        raise RuntimeError(f"tensordot expects dims to be an int or a pair of lists of dims, but got {dims!r}")
    if out is not None:
        return _C.tensordot(a, b, dims_a, dims_b, out=out)
    return _C.tensordot(a, b, dims_a, dims_b)
