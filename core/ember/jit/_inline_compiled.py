"""Calls, from code being scripted, of code compiled already: a traced function, or a scripted, traced or
loaded module held by the module being scripted (`self.encoder = ember.jit.trace(...)`). Their graphs are
inlined; a module's parameters, buffers and flags become inputs of the new graph, read at each call."""
from __future__ import annotations

import inspect

from ._compiler import ModuleRef, SValue


def is_compiled_module(obj) -> bool:
    """A ScriptModule (scripted, traced or loaded); read from its class, since its instances hand unknown
    attributes to the module they wrap (and _script_module imports the compiler, so not imported here)."""
    return getattr(type(obj), "_ember_compiled_module", False)


def inline_compiled(c, fn, node) -> SValue:
    args, kwargs = c.args_of(node)
    if not is_compiled_module(fn):  # a traced function: Tensors by position
        if kwargs or len(args) != len(fn.param_types) or any(str(a.type) != "Tensor" for a in args):
            raise c.error(f"the traced function {fn.__qualname__} takes {len(fn.param_types)} Tensors "
                          "by position", node)
        return SValue(c.g.inline_graph(c.block, fn._g, [a.id for a in args])[0], fn.return_type)
    what = f"the compiled module {type(fn._module).__name__}"
    try:
        bound = fn._sig.bind(*args, **kwargs)
    except TypeError as e:
        raise c.error(f"{what}: {e}", node) from None
    values = []
    for p in fn._sig.parameters.values():
        if p.name in bound.arguments:
            values.append(bound.arguments[p.name])
        elif p.default is not inspect.Parameter.empty:
            values.append(c.const(p.default))
    want = fn._g.param_types()
    for k, v in enumerate(values):
        if str(v.type) != want[k] and not (want[k].startswith("Optional[") and str(v.type) == "NoneType"):
            raise c.error(f"{what}: argument {k + 1} must be {want[k]}, got {v.type}", node)
    values += [c.module_attr(ModuleRef(m), name, node) for m, name in fn._attr_inputs]
    return SValue(c.g.inline_graph(c.block, fn._g, [v.id for v in values])[0], fn.return_type)
