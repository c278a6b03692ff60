"""Functions whose calls eliminate_dead_code keeps though their results are unused (fx.has_side_effect)."""
import operator

__all__ = ["has_side_effect", "has_side_effect_target"]

_SIDE_EFFECTFUL = {operator.setitem, print}


def has_side_effect(fn):
    """Marks fn as impure (a decorator, as torch.fx.node.has_side_effect); returns fn."""
    _SIDE_EFFECTFUL.add(fn)
    return fn


def has_side_effect_target(target) -> bool:
    try:
        if target in _SIDE_EFFECTFUL:
            return True
    except TypeError:
        return False
    name = getattr(target, "__name__", "")
    # in-place ember functions (relu_, add_ ...) and the manual_seed family change state
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_")
