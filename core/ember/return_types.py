"""The named tuples that ops returning several tensors give back (ember.return_types.max, ...),
like torch.return_types: tuples whose fields can also be read by name (values, indices)."""
import collections

from ._C import _return_types

globals().update(_return_types)


def _python_return_type(name, fields):
    """A named tuple for a Python-level function's result (torch.return_types.svd's U, S, V)."""
    cls = collections.namedtuple(name, fields)
    cls.__module__ = __name__
    cls.__qualname__ = name
    return cls


# PyTorch's names for the results of functions ember writes in Python (ember/_linalg_legacy.py, ...).
_PYTHON_RETURN_TYPES = {
    "slogdet": ("sign", "logabsdet"), "svd": ("U", "S", "V"), "qr": ("Q", "R"),
    "triangular_solve": ("solution", "cloned_coefficient"), "lu_unpack": ("P", "L", "U"),
    "frexp": ("mantissa", "exponent"), "histogram": ("hist", "bin_edges"), "histogramdd": ("hist", "bin_edges"),
}
for _name, _fields in _PYTHON_RETURN_TYPES.items():
    if _name not in _return_types:
        globals()[_name] = _python_return_type(_name, _fields)

__all__ = sorted(set(_return_types) | set(_PYTHON_RETURN_TYPES))
