"""ember.jit.freeze and optimize_for_inference: a ScriptModule's parameters, buffers and attributes made
constants of (a copy of) its graph and folded (ops whose inputs are all constants run once), then for
inference batch norms folded into the convolutions before them."""
from __future__ import annotations

from ._script_module import RecursiveScriptModule, ScriptModule
from ._script_module_tree import make


def _copy_graph(g):
    from ember._C import _jit

    copy = _jit.Graph()
    ids = [copy.add_param(copy.top, t, n) for t, n in zip(g.param_types(), g.param_names())]
    copy.set_returns(copy.top, copy.inline_graph(copy.top, g, ids))
    return copy


def _simplify(g) -> None:
    for _ in range(8):  # each pass can expose work for the others; a handful of rounds reaches a fixed point
        changed = g.fold_constant_ops()
        changed |= g.propagate_constants()
        changed |= g.simplify_tuples()
        changed |= g.hoist_raising_branches()
        changed |= g.eliminate_common_subexpressions()
        changed |= g.eliminate_dead_code()
        if not changed:
            return


def _qualified(module, root, name: str) -> str:
    for path, m in root.named_modules(remove_duplicate=False):
        if m is module:
            return f"{path}.{name}" if path else name
    return name


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """A frozen copy of mod (a ScriptModule in eval mode): every parameter, buffer and attribute the graph
    reads becomes a constant, except those named in preserved_attrs (as "weight" or "0.weight")."""
    if not isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use ember.jit.script or "
                           "ember.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")
    preserved = set(preserved_attrs or [])
    g = _copy_graph(mod._g)
    first = len(mod._sig.parameters)
    indices, values, kept = [], [], []
    for k, (m, name) in enumerate(mod._attr_inputs):
        if name in preserved or _qualified(m, mod._module, name) in preserved:
            kept.append((m, name))
            continue
        value = getattr(m, name)
        indices.append(first + k)
        values.append(value.detach() if hasattr(value, "detach") else value)
    g.freeze_params(indices, values)
    _simplify(g)
    return make(RecursiveScriptModule, mod._module, frozen=True, _g=g, _attr_inputs=kept, _sig=mod._sig,
                return_type=mod.return_type, _methods={})


def optimize_for_inference(mod, other_methods=None):
    """freeze (when mod is not frozen yet), then batch norms after convolutions folded into the
    convolutions' weights and biases, then relu(conv), conv + x and relu(conv + x) fused into
    aten::_conv_add_relu (the add and relu run as the convolution's epilogue)."""
    if not getattr(mod, "_frozen", False):
        mod = freeze(mod.eval() if isinstance(mod, ScriptModule) and mod.training else mod)
    g = _copy_graph(mod._g)
    if g.fold_conv_batchnorm():
        _simplify(g)
    if g.fuse_conv_add_relu():
        _simplify(g)
    return make(RecursiveScriptModule, mod._module, frozen=True, _g=g, _attr_inputs=mod._attr_inputs,
                _sig=mod._sig, return_type=mod.return_type, _methods={})
