"""ember.jit.script on functions: ScriptFunction (the compiled graph, called like the function, with
`.graph` and `.code`), inlining of called Python functions, and the helpers scripted code may call
(annotate, is_scripting)."""
from __future__ import annotations

import inspect

from . import _tracer
from . import _types as T
from ._compiler import ParsedFunction, SValue
from ._stmts import StmtCompiler


class ScriptFunction:
    """A function compiled to the script IR; calling it runs the graph on the C++ interpreter."""

    def __init__(self, fn, graph, param_types: list[T.JitType], return_type: T.JitType):
        self.__wrapped_script_fn__ = fn
        self.__name__, self.__qualname__ = fn.__name__, fn.__qualname__
        self.__doc__ = fn.__doc__
        self._g, self._sig = graph, inspect.signature(fn)
        self.param_types, self.return_type = param_types, return_type
        self._named = T._has_named(return_type)

    @property
    def graph(self) -> str:
        return str(self._g)

    @property
    def code(self) -> str:
        """The graph as readable Python: ops as ember.ops.aten calls, control flow as if/for/while."""
        return self._g.code(self.__name__)

    @property
    def name(self) -> str:
        return self.__name__

    @property
    def schema(self) -> str:
        params = ", ".join(f"{t} {n}" for n, t in zip(self._sig.parameters, self.param_types))
        return f"{self.__name__}({params}) -> {self.return_type}"

    def __call__(self, *args, **kwargs):
        if _tracer._ACTIVE and not kwargs:  # called from code being traced: the trace inlines this graph
            return _tracer._ACTIVE[-1].call_script(self, args)
        if not kwargs and len(args) == len(self.param_types):
            out = self._g.run(list(args))  # every argument given by position: no binding to do
        else:
            try:
                bound = self._sig.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{self.__qualname__}(): {e}") from None
            bound.apply_defaults()
            out = self._g.run(list(bound.arguments.values()))
        return T.rebuild_named(out, self.return_type) if self._named else out

    def __repr__(self) -> str:
        return f"<ember.jit.ScriptFunction {self.__qualname__}>"


def optimize(graph) -> None:
    """The passes every scripted graph gets: constants folded, checks' raising branches hoisted, repeats
    merged, dead code dropped."""
    graph.propagate_constants()
    graph.hoist_raising_branches()
    graph.eliminate_common_subexpressions()
    graph.eliminate_dead_code()


def script_function(fn) -> ScriptFunction:
    from ember._C import _jit

    pf = ParsedFunction(getattr(fn, "_ember_script_impl", None) or fn)  # a library's script version of fn
    g = _jit.Graph()
    c = StmtCompiler(g, g.top, pf, [(fn, None)])
    params = pf.param_types()
    args = [SValue(g.add_param(g.top, str(t), name), t) for name, t, _ in params]
    ret = c.compile_function(args)
    g.set_returns(g.top, [ret.id])
    optimize(g)
    return ScriptFunction(fn, g, [t for _, t, _ in params], ret.type)

