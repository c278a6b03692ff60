"""ember.jit.script on nn.Module instances: the module's forward compiled with `self` resolved at compile
time (submodules inlined, parameters and buffers as graph inputs read at each call, bool/int/float
attributes as inputs too unless listed in __constants__). The result is an nn.Module (ScriptModule): its
parameters and buffers are the eager module's own tensors and its submodules are scripted modules around
the eager submodules (see _script_module_tree), so parents, containers and optimizers reach them."""
from __future__ import annotations

import inspect

from ..nn.modules.module import Module, _global_forward_hooks, _global_forward_pre_hooks
from . import _script_module_tree as _tree
from . import _tracer
from . import _types as T
from ._compiler import ModuleRef, ParsedFunction, SValue
from ._errors import NotSupportedError
from ._exprs import scripted_forward
from ._script_function import optimize
from ._stmts import StmtCompiler

# what a compiled module's graph is made of; a submodule's are compiled the first time they are asked for
_COMPILED = frozenset(("_g", "_attr_inputs", "_sig", "return_type", "_methods"))


def _hooks_refused(name):
    def method(self, *args, **kwargs):
        raise RuntimeError(f"{name} is not supported on ScriptModules")

    method.__name__ = name
    method.__doc__ = "Refused as PyTorch refuses it: a compiled module's call does not run per-module hooks."
    return method


class ScriptModule(Module):
    """A compiled module (scripted, traced, loaded or frozen), an nn.Module: calling it runs forward's graph on
    the current values of the eager module's parameters, buffers and attributes, which it shares."""

    _ember_compiled_module = True  # what the compiler checks (see _inline_compiled.is_compiled_module)

    def __init__(self, *args, **kwargs):
        raise RuntimeError("ember.jit.ScriptModule is made by ember.jit.script, trace, load or freeze; constructing "
                           "or subclassing it directly (PyTorch's legacy script_method API) is not supported")

    # ---- calling ---------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        if _tracer._ACTIVE and not kwargs:  # called from code being traced: the trace inlines this graph
            return _tracer._ACTIVE[-1].call_script(self, args, [getattr(m, name) for m, name in self._attr_inputs])
        if not kwargs and len(args) == len(self._sig.parameters) and self.return_type.named is None:
            return self._g.run(list(args) + [getattr(m, name) for m, name in self._attr_inputs])  # no binding
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.original_name}.forward(): {e}") from None
        bound.apply_defaults()
        attrs = [getattr(m, name) for m, name in self._attr_inputs]
        return T.rebuild_named(self._g.run(list(bound.arguments.values()) + attrs), self.return_type)

    def __call__(self, *args, **kwargs):
        # a compiled module takes no hooks of its own, so only global ones send the call through nn.Module's
        # hook machinery; otherwise forward's fast path, repeated here to spare a Python frame per call
        if _global_forward_pre_hooks or _global_forward_hooks or _tracer._ACTIVE or kwargs:
            return self._call_impl(*args, **kwargs)
        if len(args) == len(self._sig.parameters) and self.return_type.named is None:
            return self._g.run(list(args) + [getattr(m, name) for m, name in self._attr_inputs])
        return self.forward(*args)

    register_forward_hook = _hooks_refused("register_forward_hook")
    register_forward_pre_hook = _hooks_refused("register_forward_pre_hook")
    register_full_backward_hook = _hooks_refused("register_full_backward_hook")
    register_full_backward_pre_hook = _hooks_refused("register_full_backward_pre_hook")
    register_backward_hook = _hooks_refused("register_backward_hook")

    # ---- compiled views ----------------------------------------------------------------------
    @property
    def graph(self) -> str:
        return str(self._g)

    @property
    def code(self) -> str:
        return self._g.code("forward")

    @property
    def original_module(self):
        return self._module

    @staticmethod
    def _object_type(value):
        """The Class type of an attribute value that is a scripted or C++ class's object, else None."""
        from ._script_class import object_type_of

        return object_type_of(value)

    def _compile(self) -> None:
        """Compiles a submodule's forward and exported methods the first time they are needed."""
        _tree.refuse_uncompiled(self)
        compiled = script_module(self._module, into=None)
        d = self.__dict__
        for name in _COMPILED:
            d[name] = compiled.__dict__[name]

    # ---- attributes --------------------------------------------------------------------------
    @property
    def training(self) -> bool:  # the eager module's flag: the graph reads it there
        return self.__dict__["_module"].training

    @training.setter
    def training(self, mode: bool) -> None:
        self.__dict__["_module"].training = mode

    def __getattr__(self, name):
        d = self.__dict__
        if "_module" not in d or (name.startswith("__") and name.endswith("__")):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if name in _COMPILED or ("_methods" not in d and _tree.is_exported(d["_module"], name)):
            self._compile()
            return d[name] if name in d else d["_methods"][name]
        methods = d.get("_methods")
        if methods and name in methods:
            return methods[name]
        for store in ("_parameters", "_buffers", "_modules"):
            if name in d[store]:
                return d[store][name]
        return getattr(d["_module"], name)  # the eager module's attributes (constants, flags, helpers)

    def __setattr__(self, name, value):
        d = self.__dict__
        if isinstance(value, Module):
            if not isinstance(value, ScriptModule):
                raise RuntimeError("Cannot re-assign modules in a ScriptModule with non-scripted module, tried to "
                                   f"replace existing module '{name}': {value!r}")
            if name in d["_modules"]:
                raise RuntimeError(f"ember.jit: cannot replace the submodule '{name}' of a compiled module (its "
                                   "graph calls the one it was compiled with); compile the parent again")
            d["_modules"][name] = value  # a new one: a Python attribute the compiled code does not see
            return
        if name in d["_modules"]:
            raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                            "(ember.nn.Module or None expected)")
        if isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
            return
        setattr(d["_module"], name, value)  # where the graph reads attributes (parameters land in shared dicts)

    def __delattr__(self, name):
        delattr(self.__dict__["_module"], name)

    # ---- nn.Module plumbing handed to the eager module, which owns the values -----------------
    def train(self, mode: bool = True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self._module.train(mode)
        return self

    def _apply(self, fn, recurse=True):
        self._module._apply(fn, recurse)
        return self

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        if not self.__dict__.get("_frozen"):
            self._module._save_to_state_dict(destination, prefix, keep_vars)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        args = (state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        if self.__dict__.get("_frozen"):  # nothing of its own left to load
            Module._load_from_state_dict(self, *args)
        else:
            self._module._load_from_state_dict(*args)

    # ---- containers (a scripted Sequential, ModuleList or ModuleDict) --------------------------
    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        from ..nn import ModuleDict

        return iter(self._modules) if isinstance(self._module, ModuleDict) else iter(self._modules.values())

    def __contains__(self, key) -> bool:
        return key in self._modules

    def __getitem__(self, idx):
        return _tree.container_item(self, idx)

    # ---- repr and copies ---------------------------------------------------------------------
    def _get_name(self):
        return "RecursiveScriptModule"

    def extra_repr(self) -> str:
        return f"original_name={self.original_name}"

    def __deepcopy__(self, memo):
        return _tree.deepcopy_compiled(self, memo)

    def __copy__(self):  # another compiled module around the same eager module and graph
        d = self.__dict__
        parts = {k: d[k] for k in _COMPILED if k in d}
        return _tree.make(type(self), d["_module"], frozen=d.get("_frozen", False), origin=d["_origin"],
                          names={id(m._module): m.original_name for m in self.modules() if _tree.is_compiled(m)},
                          **parts)

    def __getstate__(self):
        raise RuntimeError("ember.jit: a compiled module cannot be pickled; use ember.jit.save")


class RecursiveScriptModule(ScriptModule):
    """What ember.jit.script, load and freeze return (and each of their submodules)."""


class TracedModule(ScriptModule):
    """A submodule of a traced module: its calls were recorded into the parent's trace, not on their own."""

    def _get_name(self):
        return self.original_name


class TopLevelTracedModule(TracedModule):
    """What ember.jit.trace and trace_module return for an nn.Module."""


RecursiveScriptModule.submodule_class = RecursiveScriptModule  # what _script_module_tree wraps submodules in
TracedModule.submodule_class = TracedModule


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


def script_module(module, into=RecursiveScriptModule) -> ScriptModule:
    """module's forward and @ember.jit.export'ed methods compiled into a new `into` module (into=None: a bare
    holder of the compiled parts, for a submodule compiled on first use)."""
    forward = scripted_forward(type(module)) if hasattr(type(module), "forward") else None
    if forward is None or not inspect.isfunction(forward):
        raise NotSupportedError(f"{type(module).__name__} has no forward method to script")
    _tree.refuse_eager_hooks(module)
    fwd = compile_method(module, forward, "forward")
    methods = {name: compile_method(module, fn, name) for name, fn in _tree.exported_functions(module).items()}
    parts = {"_g": fwd._g, "_attr_inputs": fwd._attr_inputs, "_sig": fwd._sig, "return_type": fwd.return_type,
             "_methods": methods}
    if into is None:
        holder = object.__new__(_tree.CompiledParts)
        holder.__dict__.update(parts)
        return holder
    return _tree.make(into, module, **parts)
