"""ember.backends.mkldnn: ember does not use oneDNN; `enabled`, `deterministic` and `allow_tf32` are
settable bools (as in PyTorch) that change nothing here."""
from ._flags import FlagModule, install

__all__ = ["is_available", "flags"]


def is_available() -> bool:
    """False: ember is not built with oneDNN (mkldnn)."""
    return False


class _MkldnnModule(FlagModule):
    FLAGS = {"enabled": (True, "set_enabled_mkldnn"), "deterministic": (False, "set_deterministic_mkldnn"),
             "allow_tf32": (True, "_set_onednn_allow_tf32")}


def flags(enabled=False, deterministic=False, allow_tf32=True):
    """A context manager setting the flags, restoring them on exit."""
    return _module._flags(enabled=enabled, deterministic=deterministic, allow_tf32=allow_tf32)


_module = install(__name__, _MkldnnModule)
