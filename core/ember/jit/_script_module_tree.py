"""The module tree of a compiled module: each compiled module is an nn.Module whose parameter and buffer
dicts ARE the eager module's (so an optimizer step, load_state_dict or .to() on either is seen by the
graph, which reads them at each call), whose submodules are compiled modules around the eager submodules
(compiled the first time they are called), and whose deep copies own copies of all of it."""
from __future__ import annotations

import copy
import inspect

from ..nn.modules.module import Module

# dicts a compiled module shares with its eager module: the values, and the hooks that load and save them
_SHARED = ("_parameters", "_buffers", "_non_persistent_buffers_set", "_state_dict_hooks",
           "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks")


class CompiledParts:
    """The compiled pieces of a module (graph, attribute inputs, signature, return type, exported methods)."""


def exported_functions(module) -> dict:
    """The @ember.jit.export'ed functions of module's class, by name (a subclass's override wins)."""
    out = {}
    for klass in reversed(type(module).__mro__):
        for name, fn in vars(klass).items():
            if inspect.isfunction(fn) and getattr(fn, "_ember_jit_export", False):
                out[name] = fn
    return out


def is_exported(module, name: str) -> bool:
    fn = getattr(type(module), name, None)
    return inspect.isfunction(fn) and getattr(fn, "_ember_jit_export", False)


def make(cls, module, *, frozen: bool = False, origin: str = "script", names: dict | None = None, **parts):
    """A compiled module of class cls around the eager module (parts: its compiled pieces; without them they
    are compiled on first use). frozen: it owns no parameters, buffers or submodules (they are constants)."""
    return _build(cls, cls.submodule_class, module, frozen, origin, names or {}, {}, parts)


def _build(cls, child_cls, module, frozen, origin, names, memo, parts):
    sm = object.__new__(cls)
    memo[id(module)] = sm
    d = sm.__dict__
    Module.__init__(sm)  # the hook dicts a module has
    del d["training"]  # a property: the eager module's flag
    d["_module"] = module
    d["original_name"] = names.get(id(module), type(module).__name__)
    d["_origin"] = origin
    if frozen:
        d["_frozen"] = True
    else:
        for name in _SHARED:
            d[name] = module.__dict__[name]
        d["_modules"] = {name: _wrap(child, child_cls, origin, names, memo) for name, child in
                         module._modules.items()}
    d.update(parts)
    return sm


def is_compiled(m) -> bool:
    """A compiled module (ScriptModule, which imports this file), read from its class."""
    return getattr(type(m), "_ember_compiled_module", False)


def _wrap(child, child_cls, origin, names, memo):
    if child is None or is_compiled(child):  # compiled already (a scripted child): kept as it is
        return child
    if id(child) in memo:  # a submodule held twice stays one compiled module
        return memo[id(child)]
    return _build(child_cls, child_cls, child, False, origin, names, memo, {})


def refuse_uncompiled(sm) -> None:
    """Raises, as PyTorch does, for a submodule whose forward cannot be compiled on its own."""
    origin = sm.__dict__["_origin"]
    if origin == "trace":
        raise RuntimeError("Trace submodules cannot be called.")
    if origin == "load":
        raise RuntimeError(f"ember.jit.load: the archive holds no forward of this submodule ({sm.original_name}): "
                           "it was traced, or its forward does not compile by itself")
    if sm.__dict__.get("_frozen"):
        raise RuntimeError("ember.jit: a frozen module has no forward of its own to compile")


def container_item(sm, idx):
    """A scripted container's entry: by key for a ModuleDict, by position for a Sequential or ModuleList."""
    from ..nn import ModuleDict

    if isinstance(sm._module, ModuleDict):
        return sm._modules[idx]
    if isinstance(idx, bool) or not isinstance(idx, int):
        raise TypeError(f"{sm.original_name} indices must be integers, not {type(idx).__name__}")
    children = list(sm._modules.values())
    if not -len(children) <= idx < len(children):
        raise IndexError(f"index {idx} is out of range")
    return children[idx]


def deepcopy_compiled(sm, memo):
    """copy.deepcopy of a compiled module: a copy of the eager module tree, and a compiled module around it
    whose graph (shared: graphs are not changed once built) reads the copy's values."""
    d = sm.__dict__
    module = copy.deepcopy(d["_module"], memo)
    names = {id(memo[id(w._module)]): w.original_name for w in sm.modules()
             if is_compiled(w) and id(w._module) in memo}
    parts = {}
    if "_g" in d:
        def moved(attr_inputs):
            return [(copy.deepcopy(m, memo), name) for m, name in attr_inputs]

        parts = {"_g": d["_g"], "_attr_inputs": moved(d["_attr_inputs"]), "_sig": d["_sig"],
                 "return_type": d["return_type"],
                 "_methods": {name: type(m)(module, name, m._g, moved(m._attr_inputs), m._sig, m.return_type)
                              for name, m in d["_methods"].items()}}
    extra = {k: v for k, v in d.items() if k in ("_traced",)}
    new = make(type(sm), module, frozen=d.get("_frozen", False), origin=d["_origin"], names=names, **parts,
               **extra)
    memo[id(sm)] = new
    return new


def _maintains_an_attribute(hook) -> bool:
    """A pre-hook of ember.nn.utils (weight_norm, prune) that recomputes an attribute the graph reads."""
    where = getattr(hook, "__module__", None) or type(hook).__module__
    return where.startswith("ember.nn.utils.")


def refuse_eager_hooks(module) -> None:
    """Raises for a forward hook or pre-hook on module or its submodules: compiled code does not run them (PyTorch
    compiles typed hooks into the graph; ember does not yet), so scripting would silently drop them."""
    from ._errors import NotSupportedError

    for path, m in module.named_modules():
        if is_compiled(m):
            continue
        for kind, hooks in (("forward pre-hook", m._forward_pre_hooks), ("forward hook", m._forward_hooks)):
            for hook in hooks.values():
                if kind == "forward pre-hook" and _maintains_an_attribute(hook):
                    continue
                name = getattr(hook, "__qualname__", type(hook).__name__)
                raise NotSupportedError(f"ember.jit.script: the {kind} {name!r} on module "
                                        f"{path or type(m).__name__!r} would not run in the compiled module (hooks are "
                                        "not compiled); remove it before scripting, or trace the module instead")
