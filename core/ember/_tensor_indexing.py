"""nonzero with as_tuple=: one C++ op per return kind (nonzero -> a matrix, _nonzero_tuple -> a tuple
of index columns), picked here since the two forms return different types."""
from . import _C


def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the nonzero elements: an (n, input.dim()) int64 tensor, or with as_tuple=True one
    1-D tensor per dim (what input[...] takes to select those elements)."""
    if type(as_tuple) is not bool:  # PyTorch's parser takes only True/False for a bool
        raise TypeError(f"nonzero(): argument 'as_tuple' must be bool, not {type(as_tuple).__name__}")
    if as_tuple:
        if out is not None:
            raise TypeError("nonzero(): out= is not supported with as_tuple=True")
        return _C._nonzero_tuple(input)
    if out is not None:
        return _C.nonzero(input, out=out)
    return _C.nonzero(input)


class IndexingMethods:
    def nonzero(self, *, as_tuple=False):
        return nonzero(self, as_tuple=as_tuple)
