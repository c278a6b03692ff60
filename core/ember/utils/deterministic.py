"""ember.utils.deterministic.fill_uninitialized_memory: while deterministic algorithms are on and
this is True (the default), empty/empty_like/empty_strided/new_empty fill their memory (NaN for
floats and complex, the largest value for integers, True for bool), as torch.utils.deterministic."""
import sys
import types

from .. import _deterministic


class _Deterministic(types.ModuleType):
    @property
    def fill_uninitialized_memory(self):
        """Whether uninitialized memory is filled under deterministic mode."""
        return _deterministic._get_fill_uninitialized_memory()

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, value):
        _deterministic._set_fill_uninitialized_memory(value)


sys.modules[__name__].__class__ = _Deterministic
