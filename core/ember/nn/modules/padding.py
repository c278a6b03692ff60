"""The padding layers: ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad (1-3d)."""
from .. import functional as F
from .module import Module

__all__ = [f"{kind}Pad{n}d" for kind in ("Zero", "Constant", "Reflection", "Replication", "Circular")
           for n in (1, 2, 3)]


class _Pad(Module):
    _mode = "constant"
    _nd = 1

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = (padding,) * (2 * self._nd) if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != 2 * self._nd:
            raise ValueError(f"{type(self).__name__}: padding must be an int or a tuple of {2 * self._nd} ints, got "
                             f"{padding}")
        self.value = value

    def forward(self, input):
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}, value={self.value}" if self._mode == "constant" else f"{self.padding}"


def _make(kind, mode, nd, constant_arg):
    def init(self, padding, value=0.0):
        _Pad.__init__(self, padding, value)

    def init_plain(self, padding):
        _Pad.__init__(self, padding)
    return type(f"{kind}Pad{nd}d", (_Pad,), {"_mode": mode, "_nd": nd,
                                             "__init__": init if constant_arg else init_plain,
                                             "__module__": __name__})


for _nd in (1, 2, 3):
    globals()[f"ConstantPad{_nd}d"] = _make("Constant", "constant", _nd, True)
    globals()[f"ZeroPad{_nd}d"] = _make("Zero", "constant", _nd, False)
    globals()[f"ReflectionPad{_nd}d"] = _make("Reflection", "reflect", _nd, False)
    globals()[f"ReplicationPad{_nd}d"] = _make("Replication", "replicate", _nd, False)
    globals()[f"CircularPad{_nd}d"] = _make("Circular", "circular", _nd, False)
