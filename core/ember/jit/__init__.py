"""ember.jit: the script compiler. `script(fn)` compiles a function written in the typed subset of
Python that TorchScript accepts into an SSA graph (ember._C._jit) that runs on a C++ interpreter
calling ops through the op table."""
from __future__ import annotations

from ._errors import FrontendError, NotSupportedError, ScriptTypeError
from ._script_function import ScriptFunction, script_function
from ._script_helpers import annotate, is_scripting

__all__ = ["script", "ScriptFunction", "annotate", "is_scripting", "FrontendError", "NotSupportedError",
           "ScriptTypeError"]


def script(obj):
    """Compiles a function to a ScriptFunction (a ScriptFunction is returned as it is)."""
    if isinstance(obj, ScriptFunction):
        return obj
    return script_function(obj)
