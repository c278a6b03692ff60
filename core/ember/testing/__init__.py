"""ember.testing: what tests of ember and of the domain packages share: `assert_close` and
`make_tensor` with PyTorch's semantics and messages."""
from ._comparison import assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "make_tensor"]
