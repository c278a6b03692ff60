"""ember.jit.script on nn.Module instances: the module's forward compiled with `self` resolved at compile
time (submodules inlined, parameters and buffers as graph inputs read at each call, bool/int/float
attributes as inputs too unless listed in __constants__)."""
from __future__ import annotations

import inspect

from . import _tracer
from . import _types as T
from ._compiler import ModuleRef, ParsedFunction, SValue
from ._errors import NotSupportedError
from ._exprs import scripted_forward
from ._script_function import optimize
from ._stmts import StmtCompiler


def _returning_self(name):
    def method(self, *args, **kwargs):
        getattr(self._module, name)(*args, **kwargs)
        return self  # as nn.Module's: `ember.jit.script(m).eval()` is still the scripted module

    method.__name__ = name
    method.__doc__ = f"nn.Module.{name} on the scripted module's parameters, buffers and flags; returns self."
    return method


class ScriptModule:
    """A scripted module: calling it runs forward's graph on the current values of the module's
    parameters, buffers and attributes; everything else (parameters(), state_dict(), eval()...) is the
    original module's."""

    _ember_compiled_module = True  # what the compiler checks (see _inline_compiled.is_compiled_module)

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
        if _tracer._ACTIVE and not kwargs:  # called from code being traced: the trace inlines this graph
            return _tracer._ACTIVE[-1].call_script(self, args, [getattr(m, name) for m, name in self._attr_inputs])
        if not kwargs and len(args) == len(self._sig.parameters) and self.return_type.named is None:
            return self._g.run(list(args) + [getattr(m, name) for m, name in self._attr_inputs])  # no binding
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{type(self._module).__name__}.forward(): {e}") from None
        bound.apply_defaults()
        attrs = [getattr(m, name) for m, name in self._attr_inputs]
        return T.rebuild_named(self._g.run(list(bound.arguments.values()) + attrs), self.return_type)

    __call__ = forward

    @staticmethod
    def _object_type(value):
        """The Class type of an attribute value that is a scripted or C++ class's object, else None."""
        from ._script_class import object_type_of

        return object_type_of(value)

    def __getattr__(self, name):
        methods = self.__dict__.get("_methods", {})
        if name in methods:
            return methods[name]
        return getattr(self._module, name)

    def __setattr__(self, name, value):
        setattr(self._module, name, value)

    # nn.Module's methods that return the module return this scripted module, not the eager one inside it
    train, eval, to, cpu, cuda = _returning_self("train"), _returning_self("eval"), _returning_self("to"), \
        _returning_self("cpu"), _returning_self("cuda")
    type, float, double, half = _returning_self("type"), _returning_self("float"), _returning_self("double"), \
        _returning_self("half")
    bfloat16, requires_grad_, apply = _returning_self("bfloat16"), _returning_self("requires_grad_"), \
        _returning_self("apply")

    def __repr__(self) -> str:
        return f"ScriptModule({self._module!r})"


class ScriptMethod:
    """A module method compiled like forward (an @ember.jit.export'ed one): runs its graph on the module's
    current parameters, buffers and attributes."""

    def __init__(self, module, name, graph, attr_inputs, signature, return_type):
        self._module, self.name, self._g, self._attr_inputs = module, name, graph, attr_inputs
        self._sig, self.return_type = signature, return_type

    @property
    def graph(self) -> str:
        return str(self._g)

    @property
    def code(self) -> str:
        return self._g.code(self.name)

    def __call__(self, *args, **kwargs):
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{type(self._module).__name__}.{self.name}(): {e}") from None
        bound.apply_defaults()
        attrs = [getattr(m, name) for m, name in self._attr_inputs]
        out = self._g.run(list(bound.arguments.values()) + attrs)
        return T.rebuild_named(out, self.return_type)


def compile_method(module, fn, name: str) -> ScriptMethod:
    from ember._C import _jit

    pf = ParsedFunction(fn)
    g = _jit.Graph()
    c = StmtCompiler(g, g.top, pf, [(fn, id(module))])
    params = pf.param_types()[1:]  # after self
    args = [SValue(g.add_param(g.top, str(t), pname), t) for pname, t, _ in params]
    ret = c.compile_function([ModuleRef(module)] + args)
    g.set_returns(g.top, [ret.id])
    optimize(g)
    sig = inspect.signature(fn)
    sig = sig.replace(parameters=list(sig.parameters.values())[1:])
    return ScriptMethod(module, name, g, c.attr_inputs, sig, ret.type)


def script_module(module) -> ScriptModule:
    forward = scripted_forward(type(module)) if hasattr(type(module), "forward") else None
    if forward is None or not inspect.isfunction(forward):
        raise NotSupportedError(f"{type(module).__name__} has no forward method to script")
    fwd = compile_method(module, forward, "forward")
    sm = ScriptModule(module, fwd._g, fwd._attr_inputs, fwd._sig, fwd.return_type)
    methods = {}
    for klass in reversed(type(module).__mro__):
        for name, fn in vars(klass).items():
            if inspect.isfunction(fn) and getattr(fn, "_ember_jit_export", False):
                methods[name] = fn
    object.__setattr__(sm, "_methods", {name: compile_method(module, fn, name) for name, fn in methods.items()})
    return sm
