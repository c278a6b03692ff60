"""The language's own calls into Python (prim::PythonOp nodes that are not @ember.jit.ignore'd functions):
print and str.format of values that hold tensors (tensors have their text in Python) and warnings.warn. They
belong to ember, not to the model, so a saved graph keeps them and ember.jit.load binds them again by name;
a call of an ignored function of the model cannot be saved (PyTorch's rule)."""
from __future__ import annotations

import re
import warnings


def _print(*args) -> None:
    print(*args)


def _format(fmt, *args) -> str:
    return fmt.format(*args)


def _warn(msg) -> None:
    warnings.warn(msg, stacklevel=2)


BUILTIN_PYTHON_OPS = {"print": _print, "str.format": _format, "warnings.warn": _warn}

_PYTHON_OP = re.compile(r'prim::PythonOp\[name="((?:[^"\\]|\\.)*)"\]')


def ignored_name(fn) -> str:
    """The name an ignored function's node carries: its qualified name, qualified by its module when that
    would read as one of the builtin calls above."""
    name = fn.__qualname__
    return f"{fn.__module__}.{name}" if name in BUILTIN_PYTHON_OPS else name


def check_exportable(graph_text: str) -> None:
    """Refuses a graph that calls a Python function of the model, as torch.jit.save does."""
    for name in _PYTHON_OP.findall(graph_text):
        if name not in BUILTIN_PYTHON_OPS:
            raise RuntimeError(f"Could not export Python function call '{name}'. Remove calls to Python functions "
                               "before export. Did you forget to add @script or @script_method annotation? If this "
                               "is a nn.ModuleList, add it to __constants__")
