"""The named tuples that ops returning several tensors give back (ember.return_types.max, ...),
like torch.return_types: tuples whose fields can also be read by name (values, indices)."""
from ._C import _return_types

globals().update(_return_types)
__all__ = sorted(_return_types)
