"""ember.testing: what tests of ember and of the domain packages share: `assert_close` and
`make_tensor` with PyTorch's semantics and messages, and the OpInfo machinery (ember.testing.opinfo:
an op's reference, sample inputs and tolerances, and `check_against_reference`), with which a domain
package's tests declare OpInfos for its own ops as the core's do. The OpInfo names load on first use,
so `import ember` does not import NumPy."""
from ._comparison import assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "make_tensor", "OpInfo", "Sample", "check_against_reference"]
_OPINFO_NAMES = ("OpInfo", "Sample", "check_against_reference")


def __getattr__(name):
    if name in _OPINFO_NAMES:
        from . import opinfo

        return getattr(opinfo, name)
    raise AttributeError(f"module 'ember.testing' has no attribute {name!r}")
