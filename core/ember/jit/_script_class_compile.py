"""Compiling a scripted class (ember.jit.script on a class): its members checked, its __init__ compiled once
to learn its attributes (each first assigned in __init__, typed by its annotation or value), and the class
defined in ember._C._jit's registry (_script_class.py holds what the compiler reads of it)."""
from __future__ import annotations

import ast
import inspect
import textwrap

from ._compiler import SValue
from ._errors import NotSupportedError, SourceContext
from ._exprs_objects import MethodFunction
from ._script_class import BY_NAME, ClassInfo, check_members, info_of, qualified_name
from ._stmts import StmtCompiler


def script_class(cls):
    """Compiles cls's __init__ to learn its attributes and registers the class; returns cls."""
    from ember._C import _jit

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
    check_members(info)
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
