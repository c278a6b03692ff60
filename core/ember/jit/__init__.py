"""ember.jit: the script compiler. `script(fn)` compiles a function written in the typed subset of
Python that TorchScript accepts into an SSA graph (ember._C._jit) that runs on a C++ interpreter
calling ops through the op table."""
from __future__ import annotations

from ._errors import FrontendError, NotSupportedError, ScriptTypeError
from ._fork import fork, wait
from . import _isinstance
from ._freeze import freeze, optimize_for_inference
from ._prepare import prepare_scriptable
from ._script_function import ScriptFunction, script_function
from ._script_helpers import annotate, export, ignore, is_scripting, unused
from ._script_module import ScriptModule, script_module
# public as in PyTorch, though not in __all__: the classes compiled modules are instances of
from ._script_module import RecursiveScriptModule as RecursiveScriptModule
from ._script_module import TopLevelTracedModule as TopLevelTracedModule
from ._script_module import TracedModule as TracedModule
from ._serialization import load, save
from ._trace import trace, trace_module
from ._tracer import TracerWarning, TracingCheckError

__all__ = ["script", "ScriptFunction", "ScriptModule", "annotate", "export", "ignore", "unused", "is_scripting",
           "FrontendError", "NotSupportedError", "ScriptTypeError", "trace", "trace_module", "TracerWarning",
           "TracingCheckError", "save", "load", "freeze", "optimize_for_inference", "fork", "wait", "isinstance"]


def script(obj):
    """Compiles a function to a ScriptFunction, an nn.Module instance to a ScriptModule, a class to a scripted
    class (returned itself: its objects are values scripted code makes, passes and returns); scripted objects
    are returned as they are."""
    import ember.nn

    from ._script_class_compile import script_class

    if isinstance(obj, (ScriptFunction, ScriptModule)):
        return obj
    if isinstance(obj, ember.nn.Module):
        return script_module(prepare_scriptable(obj))
    if isinstance(obj, type):
        return script_class(obj)
    return script_function(obj)


isinstance = _isinstance.isinstance  # ember.jit.isinstance (defined last: script() uses the builtin)
