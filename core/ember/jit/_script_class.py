"""ember.jit.script on classes: a class whose attributes are assigned (typed) in `__init__` and whose methods
are written in the script language. Its objects are run-time values (a slot per attribute, ember._C._jit's
class registry); its methods are compiled into the graphs that call them, as every scripted call is.
The class itself stays the Python class: eager code uses it as before, and objects that scripted code
returns are instances of it."""
from __future__ import annotations

import ast
import inspect
import re
import textwrap

from . import _types as T
from ._errors import NotSupportedError, SourceContext


class ClassInfo:
    """A scripted class: its qualified name, attribute types (in slot order) and methods."""

    def __init__(self, cls, qualname: str, ctx: SourceContext, tree: ast.ClassDef):
        self.cls, self.qualname, self.ctx, self.tree = cls, qualname, ctx, tree
        self.fields: dict[str, T.JitType] = {}
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


def _check_members(info: ClassInfo) -> None:
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
        raise NotSupportedError(f"a {type(stmt).__name__} statement in the body of a scripted class is not "
                                "supported (only methods are)", info.ctx, stmt)
    if info.method("__init__") is None:
        raise NotSupportedError(f"the scripted class {info.cls.__qualname__} has no __init__ method", info.ctx,
                                info.tree)


def script_class(cls):
    """Compiles cls's __init__ to learn its attributes and registers the class; returns cls."""
    from ember._C import _jit

    from ._compiler import SValue
    from ._exprs_objects import MethodFunction
    from ._stmts import StmtCompiler

    if info_of(cls) is not None:
        return cls
    if cls.__bases__ != (object,):
        raise NotSupportedError(f"scripted class {cls.__qualname__} derives from "
                                f"{', '.join(b.__qualname__ for b in cls.__bases__)}: scripted classes cannot "
                                "inherit")
    lines, first = inspect.getsourcelines(cls)
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    col = len(lines[0]) - len(lines[0].lstrip()) if text != raw else 0
    tree = ast.parse(text).body[0]
    ctx = SourceContext(inspect.getsourcefile(cls) or "<unknown>", text.splitlines(), first, col, cls.__qualname__)
    info = ClassInfo(cls, qualified_name(cls), ctx, tree)
    _check_members(info)
    for fn in vars(cls).values():
        fn = fn.__func__ if isinstance(fn, staticmethod) else fn
        if inspect.isfunction(fn):
            fn._ember_localns = {cls.__name__: cls}  # the class names itself in its methods' annotations
    cls.__ember_script_class__ = info
    BY_NAME[info.qualname] = info
    try:
        init = info.method("__init__")
        g = _jit.Graph()
        pf = MethodFunction(init, info)
        c = StmtCompiler(g, g.top, pf, [(init, None)])
        params = pf.param_types()
        args = [SValue(g.add_param(g.top, str(t), name), t) for name, t, _ in params]
        c.compile_function(args)
        info.defining = False
        _jit.define_class(info.qualname, list(info.fields), [str(t) for t in info.fields.values()], cls)
    except BaseException:
        del cls.__ember_script_class__
        BY_NAME.pop(info.qualname, None)
        raise
    return cls
