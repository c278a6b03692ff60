"""Forward-mode automatic differentiation: inside `with dual_level():`, make_dual(x, t) gives a
tensor that carries the tangent t, every op on it carries J t forward, and unpack_dual(y) reads
(primal, tangent) back. Tangents come from the ops' backward formulas (core/csrc/autograd/
forward_ad.cpp), so every op with a reverse-mode derivative has a forward one. One level at a
time, as in PyTorch; leaving it drops every tangent made inside."""
import collections

from .. import _C

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def enter_dual_level():
    """Starts a forward AD level and returns its index (0)."""
    return _C._enter_dual_level()


def exit_dual_level(*, level=None):
    """Ends the level (the current one by default); the tangents made in it are gone."""
    _C._exit_dual_level(_C._current_dual_level() if level is None else level)


def _level(level):
    if level is None:
        level = _C._current_dual_level()
        if level < 0:
            raise RuntimeError("make_dual/unpack_dual need a forward AD level: use them inside `with dual_level():`")
    return level


def make_dual(tensor, tangent, *, level=None):
    """A view of tensor (keeping its reverse-mode history) that carries tangent, which must have
    tensor's shape, dtype and device."""
    return _C._make_dual(tensor, tangent, _level(level))


def unpack_dual(tensor, *, level=None):
    """(primal, tangent): a view of tensor without its tangent, and the tangent (None when the
    tensor carries none at the level)."""
    level = _C._current_dual_level() if level is None else level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(*_C._unpack_dual(tensor, level))


class dual_level:
    """Context manager for a forward AD level:

        with dual_level():
            y = f(make_dual(x, t))
            jvp = unpack_dual(y).tangent
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
