"""ember.jit.script on nn.Module instances: the module's forward compiled with `self` resolved at compile
time (submodules inlined, parameters and buffers as graph inputs read at each call, bool/int/float
attributes as inputs too unless listed in __constants__)."""
from __future__ import annotations

import inspect

from ._compiler import ModuleRef, ParsedFunction, SValue
from ._errors import NotSupportedError
from ._script_function import optimize
from ._stmts import StmtCompiler


class ScriptModule:
    """A scripted module: calling it runs forward's graph on the current values of the module's
    parameters, buffers and attributes; everything else (parameters(), state_dict(), eval()...) is the
    original module's."""

    def __init__(self, module, graph, attr_inputs, signature, return_type):
        object.__setattr__(self, "_module", module)
        object.__setattr__(self, "_g", graph)
        object.__setattr__(self, "_attr_inputs", attr_inputs)
        object.__setattr__(self, "_sig", signature)
        object.__setattr__(self, "return_type", return_type)

    @property
    def graph(self) -> str:
        return str(self._g)

    @property
    def code(self) -> str:
        return self._g.code("forward")

    @property
    def original_module(self):
        return self._module

    def forward(self, *args, **kwargs):
        if not kwargs and len(args) == len(self._sig.parameters):  # all by position: no binding to do
            return self._g.run(list(args) + [getattr(m, name) for m, name in self._attr_inputs])
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{type(self._module).__name__}.forward(): {e}") from None
        bound.apply_defaults()
        attrs = [getattr(m, name) for m, name in self._attr_inputs]
        return self._g.run(list(bound.arguments.values()) + attrs)

    __call__ = forward

    def __getattr__(self, name):
        return getattr(self._module, name)

    def __setattr__(self, name, value):
        setattr(self._module, name, value)

    def __repr__(self) -> str:
        return f"ScriptModule({self._module!r})"


def script_module(module) -> ScriptModule:
    from ember._C import _jit

    forward = getattr(type(module), "forward", None)
    if forward is None or not inspect.isfunction(forward):
        raise NotSupportedError(f"{type(module).__name__} has no forward method to script")
    pf = ParsedFunction(forward)
    g = _jit.Graph()
    c = StmtCompiler(g, g.top, pf, [(forward, id(module))])
    params = pf.param_types()[1:]  # after self
    args = [SValue(g.add_param(g.top, str(t), name), t) for name, t, _ in params]
    ret = c.compile_function([ModuleRef(module)] + args)
    g.set_returns(g.top, [ret.id])
    optimize(g)
    sig = inspect.signature(forward)
    sig = sig.replace(parameters=list(sig.parameters.values())[1:])
    return ScriptModule(module, g, c.attr_inputs, sig, ret.type)
