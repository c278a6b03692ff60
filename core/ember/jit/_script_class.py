"""ember.jit.script on classes: a class whose attributes are assigned (typed) in `__init__` and whose methods
are written in the script language. Its objects are run-time values (a slot per attribute, ember._C._jit's
class registry); its methods are compiled into the graphs that call them, as every scripted call is.
The class itself stays the Python class: eager code uses it as before, and objects that scripted code
returns are instances of it."""
from __future__ import annotations

import ast
import inspect
import re

from . import _types as T
from ._errors import NotSupportedError, SourceContext


class ClassInfo:
    """A scripted class: its qualified name, attribute types (in slot order) and methods."""

    def __init__(self, cls, qualname: str, ctx: SourceContext, tree: ast.ClassDef):
        self.cls, self.qualname, self.ctx, self.tree = cls, qualname, ctx, tree
        self.fields: dict[str, T.JitType] = {}
        self.constants: dict[str, object] = {}  # class-level `NAME = literal` members (Matcher.BELOW_LOW_THRESHOLD)
        self.defining = True  # while __init__ is first compiled: attribute assignments declare attributes
        self.type = T.JitType("Class", name=qualname)

    def method(self, name: str):
        fn = inspect.getattr_static(self.cls, name, None)
        if isinstance(fn, staticmethod):
            return fn.__func__
        return fn if inspect.isfunction(fn) else None

    def slot(self, attr: str) -> int:
        return list(self.fields).index(attr)


BY_NAME: dict[str, ClassInfo] = {}  # the scripted classes by qualified name


def qualified_name(cls) -> str:
    return "__torch__." + re.sub(r"[^A-Za-z0-9_.]", "_", f"{cls.__module__}.{cls.__qualname__}")


def info_of(cls) -> ClassInfo | None:
    return cls.__dict__.get("__ember_script_class__") if isinstance(cls, type) else None


def check_members(info: ClassInfo) -> None:
    """Every member is a method, a static method or a docstring: anything else is refused where it is written."""
    for stmt in info.tree.body:
        if isinstance(stmt, ast.FunctionDef):
            for dec in stmt.decorator_list:
                name = ast.unparse(dec)
                if name not in ("staticmethod", "ember.jit.export", "jit.export", "export"):
                    raise NotSupportedError(f"the decorator @{name} on a method of a scripted class is not supported",
                                            info.ctx, dec)
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            continue  # the docstring
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            continue  # an attribute's declaration: its type is what __init__ assigns
        constant = _class_constant(info.cls, stmt)
        if constant is not None:
            info.constants[constant[0]] = constant[1]
            continue
        raise NotSupportedError(f"a {type(stmt).__name__} statement in the body of a scripted class is not "
                                "supported (only methods are)", info.ctx, stmt)
    if info.method("__init__") is None:
        raise NotSupportedError(f"the scripted class {info.cls.__qualname__} has no __init__ method", info.ctx,
                                info.tree)


def _class_constant(cls, stmt: ast.stmt):
    """(name, value) of a class-level constant `NAME = <int, float, bool or str literal>` (its value read off the
    class, as TorchScript reads a class's constants); None for any other statement."""
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and stmt.simple:
        target = stmt.target
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    else:
        return None
    if not isinstance(target, ast.Name):
        return None
    value = getattr(cls, target.id, None)
    if type(value) not in (int, float, bool, str):
        return None
    return target.id, value


def custom_methods(t: T.JitType) -> dict[str, tuple[list[T.JitType], T.JitType]] | None:
    """A C++ class's methods: name -> (parameter types after self, result type); None when t is not one."""
    from ember._C import _jit

    info = _jit.class_info(t.name)
    if info is None or not info[0]:
        return None
    return {name: ([T.parse(p) for p in params], T.parse(ret)) for name, params, ret in info[3]}


def object_type_of(v) -> T.JitType | None:
    """The type of a value when it is an object scripted code can hold (a scripted class's, a C++ class's, an
    extension's object sharing a C++ one), or a non-empty list of objects of one class, or a dict of str keys
    to them; else None."""
    from ember._C import _jit

    if isinstance(v, _jit.ScriptObject):
        return T.JitType("Class", name=v._type)
    if not isinstance(v, type) and hasattr(v, "_ember_script_object"):
        return T.JitType("Class", name=v._ember_script_object()._type)
    if isinstance(v, list) and v:
        ts = {object_type_of(x) for x in v}
        return T.list_of(ts.pop()) if len(ts) == 1 and None not in ts else None
    if isinstance(v, dict) and v and all(isinstance(k, str) for k in v):
        ts = {object_type_of(x) for x in v.values()}
        return T.dict_of(T.STR, ts.pop()) if len(ts) == 1 and None not in ts else None
    loaded = type(v).__dict__.get("__ember_loaded_class__")
    if loaded is not None:
        return T.JitType("Class", name=loaded)
    info = info_of(type(v))
    return info.type if info is not None else None
