"""PyTorch's warn-always switch (torch.set_warn_always / is_warn_always_enabled): warnings PyTorch gives
once per process (its TORCH_WARN_ONCE) are given on every call while it is on. Ember's Python-written
ops give their once-only warnings through warn_once, so the switch governs them the same way."""
from __future__ import annotations

import warnings

__all__ = ["set_warn_always", "is_warn_always_enabled"]

_state = {"always": False}
_already_warned: set = set()


def set_warn_always(b):
    """When True, warnings PyTorch gives only once per process are given every time."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _state["always"] = b


def is_warn_always_enabled():
    return _state["always"]


def warn_once(message, category=UserWarning, stacklevel=3):
    """Warns with message the first time it is seen in this process (every time under set_warn_always(True))."""
    if _state["always"] or message not in _already_warned:
        _already_warned.add(message)
        warnings.warn(message, category, stacklevel=stacklevel)
