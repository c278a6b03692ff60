"""use_deterministic_algorithms and its getters, as in PyTorch.

Ember's CPU ops give the same result on every run with the same inputs and thread count. Most give
the same result for any thread count too: reductions (sum, mean, var, norm, prod, logsumexp,
softmax, cumsum) split their work by sizes alone, and index_add_/scatter_add_/index_put_(accumulate)
/put_(accumulate)/bincount/histc/embedding's backward add duplicates in index order. Those whose
float results depend on the thread count (the rounding of a reordered sum changes, the result stays
run-to-run deterministic) are listed in THREAD_COUNT_DEPENDENT. Ops with no deterministic result
(which write wins among duplicate indices depends on how the work is split) call
_alert_not_deterministic, which raises under deterministic mode (warns with warn_only=True) naming
the op, as PyTorch's do. Under deterministic mode, memory from empty/empty_like/empty_strided/
new_empty is filled (NaN, or the largest integer) while ember.utils.deterministic.
fill_uninitialized_memory is True (the default).
"""
import warnings

from . import _C

# Float results that can differ in the last bits between thread counts (same thread count, same bits).
THREAD_COUNT_DEPENDENT = (
    "matmul, mm, bmm, addmm, baddbmm, linear and the other float products (OpenBLAS splits by threads)",
    "conv1d/2d/3d and conv_transpose weight and bias gradients (per-thread partial sums)",
)
# Ops that raise under deterministic mode (their results depend on how duplicate writes are split).
NONDETERMINISTIC = ("max_unpool1d", "max_unpool2d", "max_unpool3d")

_state = {"mode": False, "warn_only": False, "fill": True}


def _sync_fill():
    _C._set_fill_uninitialized_memory(_state["mode"] and _state["fill"])


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Makes ops that have no deterministic implementation raise RuntimeError naming themselves
    (warn instead with warn_only=True), and fills uninitialized memory (see
    ember.utils.deterministic.fill_uninitialized_memory)."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _state["mode"], _state["warn_only"] = mode, warn_only
    _sync_fill()


def are_deterministic_algorithms_enabled():
    """True while use_deterministic_algorithms(True) is in force."""
    return _state["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    """True when deterministic mode was set with warn_only=True."""
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """0 / "default": off; 1 / "warn": on, warning; 2 / "error": on, raising."""
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = names[debug_mode]
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0 when deterministic mode is off, 1 when it only warns, 2 when it raises."""
    if not _state["mode"]:
        return 0
    return 1 if _state["warn_only"] else 2


def _get_fill_uninitialized_memory():
    return _state["fill"]


def _set_fill_uninitialized_memory(value):
    if not isinstance(value, bool):
        raise RuntimeError(f"expected a bool, but got {type(value).__name__}")
    _state["fill"] = value
    _sync_fill()


def _alert_not_deterministic(name):
    """Raises (or warns, with warn_only) when deterministic mode is on: `name` has no deterministic
    implementation. PyTorch's message."""
    if not _state["mode"]:
        return
    if _state["warn_only"]:
        warnings.warn(f"{name} does not have a deterministic implementation, but you set "
                      "'ember.use_deterministic_algorithms(True, warn_only=True)'.", UserWarning, stacklevel=3)
        return
    raise RuntimeError(f"{name} does not have a deterministic implementation, but you set "
                       "'ember.use_deterministic_algorithms(True)'. You can turn off determinism just for this "
                       "operation, or you can use the 'warn_only=True' option, if that's acceptable for your "
                       "application.")
