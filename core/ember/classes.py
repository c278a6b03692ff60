"""ember.classes: the C++ classes extensions register for scripting (TorchScript's torch.classes).
`ember.classes.NS.Name(*args)` constructs one (a ScriptObject whose methods run the C++ ones), in eager
code as in scripted code, and `ember.classes.NS.Name` is its type in annotations."""
from __future__ import annotations

import sys
import types

from ._C import _jit

ScriptObject = _jit.ScriptObject
_PREFIX = "__torch__.torch.classes."


class CustomClass:
    """A registered C++ class: callable to construct an object; its qualified name is the script type."""

    def __init__(self, ns: str, name: str):
        self.namespace, self.__name__ = ns, name
        self.qualified_name = f"{_PREFIX}{ns}.{name}"

    def __call__(self, *args):
        return _jit.construct(self.qualified_name, *args)

    def __instancecheck__(self, obj) -> bool:
        return isinstance(obj, ScriptObject) and obj._type == self.qualified_name

    def __repr__(self) -> str:
        return f"<ember.classes.{self.namespace}.{self.__name__}>"


class _Namespace(types.SimpleNamespace):
    def __init__(self, ns: str):
        super().__init__()
        object.__setattr__(self, "_ns", ns)

    def __getattr__(self, name: str) -> CustomClass:
        if name.startswith("__"):
            raise AttributeError(name)
        qualname = f"{_PREFIX}{self._ns}.{name}"
        if _jit.class_info(qualname) is None:
            raise RuntimeError(f"Tried to instantiate class '{self._ns}.{name}', but it does not exist! Ensure "
                               "that it is registered via ember::jit::class_ (import the extension that "
                               "defines it)")
        return CustomClass(self._ns, name)


class _Classes(types.ModuleType):
    def __getattr__(self, ns: str) -> _Namespace:
        if ns.startswith("__"):
            raise AttributeError(ns)
        return _Namespace(ns)


def class_of_name(qualname: str) -> CustomClass | None:
    """The registered C++ class of that qualified name, or None."""
    if not qualname.startswith(_PREFIX):
        return None
    ns, _, name = qualname[len(_PREFIX):].rpartition(".")
    return CustomClass(ns, name)


sys.modules[__name__].__class__ = _Classes
