"""grad, grad_and_value, vjp and jvp over ember's autograd, with PyTorch's argnums/has_aux rules
and messages. Nested transforms work because each one makes its inputs fresh nodes of the running
graph and keeps the graph (create_graph) while an outer transform is active; the outermost one
detaches what it returns."""
import functools

from .. import _C
from ..autograd import forward_ad
from ..autograd.grad_mode import enable_grad
from ._batched import Batched, NeedsPerSample
from ._tree import flatten, unflatten

_depth = [0]  # how many ember.func transforms are running (outer ones need the inner graphs)


class _Level:
    def __enter__(self):
        _depth[0] += 1

    def __exit__(self, *exc):
        _depth[0] -= 1


def _outermost():
    return _depth[0] == 0


def _check_argnums(argnums, n):
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        items = (argnums,)
    elif isinstance(argnums, tuple) and argnums:
        items = argnums
        if len(set(a % n if isinstance(a, int) and n else a for a in items)) != len(items):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in items:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(a)}")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    return tuple(a % n for a in items)


def _leaf_of(x):
    """A fresh differentiable node for x: tied to x's graph when an outer transform tracks it."""
    if not isinstance(x, _C.TensorBase):
        raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    if isinstance(x, Batched):
        raise NeedsPerSample
    if x.requires_grad and not _outermost():
        return x.view_as(x)
    if _C._current_dual_level() >= 0:  # under jvp/jacfwd: keep the tangent x carries
        primal, tangent = forward_ad.unpack_dual(x)
        if tangent is not None:
            return forward_ad.make_dual(primal.detach().requires_grad_(True), tangent)
    return x.detach().requires_grad_(True)


def _no_batched(*trees):
    """A batched value (vmap's rules path) reaching a transform: vmap reruns per sample instead,
    because autograd sees one sample of a batched value."""
    for tree in trees:
        if any(isinstance(x, Batched) for x in flatten(tree)[0]):
            raise NeedsPerSample


def _wrap_inputs(args, argnums):
    """args with the inputs at argnums replaced by fresh nodes; returns (args, diff_leaves, specs)."""
    _no_batched(args)
    args = list(args)
    diff, specs = [], []
    for a in argnums:
        leaves, spec = flatten(args[a])
        leaves = [_leaf_of(x) for x in leaves]
        args[a] = unflatten(spec, leaves)
        diff.append(leaves)
        specs.append(spec)
    return args, diff, specs


def _detach_tree(tree):
    if not _outermost():
        return tree
    leaves, spec = flatten(tree)
    return unflatten(spec, [x.detach() if isinstance(x, _C.TensorBase) else x for x in leaves])


def _autograd_grad(outputs, inputs, grad_outputs, create_graph):
    from ..autograd import grad
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs or not inputs:
        return [_C.zeros_like(i) for i in inputs]
    res = grad([o for o, _ in pairs], inputs, [g for _, g in pairs], create_graph=create_graph, retain_graph=True,
               allow_unused=True)
    return [_C.zeros_like(i) if r is None else r for r, i in zip(res, inputs)]


def _split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is "
                           "True")
    return out


def grad_and_value(func, argnums=0, has_aux=False):
    """(gradient of func's scalar output with respect to the inputs at argnums, the output[, aux])."""
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        nums = _check_argnums(argnums, len(args))
        with _Level(), enable_grad():
            wargs, diff, specs = _wrap_inputs(args, nums)
            out, aux = _split_aux(func(*wargs, **kwargs), has_aux, "grad_and_value")
            _no_batched(out, kwargs)
            if not isinstance(out, _C.TensorBase):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   "instead?")
            flat = [x for leaves in diff for x in leaves]
            grads = _autograd_grad([out], flat, [_C.ones_like(out)], create_graph=_depth[0] > 1)
        it = iter(grads)
        per_arg = [unflatten(spec, [next(it) for _ in leaves]) for spec, leaves in zip(specs, diff)]
        g = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
        g = _detach_tree(g)
        value = _detach_tree(out)
        if has_aux:
            return g, (value, _detach_tree(aux))
        return g, value
    return wrapped


def grad(func, argnums=0, has_aux=False):
    """The gradient of func (which returns a scalar tensor) with respect to the inputs at argnums."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapped


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives the cotangents' products with the
    Jacobian, one per primal (pytrees as the primals)."""
    level = _Level()
    level.__enter__()
    try:
        with enable_grad():
            wargs, diff, specs = _wrap_inputs(primals, tuple(range(len(primals))))
            out, aux = _split_aux(func(*wargs), has_aux, "vjp")
        _no_batched(out)
        outs, ospec = flatten(out)
        for o in outs:
            if not isinstance(o, _C.TensorBase):
                raise RuntimeError(f"vjp(f, *primals): Expected f to be a function that has non-empty output, "
                                   f"and returns Tensors, got {type(o)}")
        nested = _depth[0] > 1
    finally:
        level.__exit__()
    flat_in = [x for leaves in diff for x in leaves]

    def vjp_fn(cotangents):
        cts, cspec = flatten(cotangents)
        if len(cts) != len(outs):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {cotangents}, primal output: {out}")
        for c, o in zip(cts, outs):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {c.shape} and output[0] has "
                                   f"a shape of {o.shape}.")
        with enable_grad():
            grads = _autograd_grad(outs, flat_in, cts, create_graph=nested or not _outermost())
        it = iter(grads)
        res = tuple(unflatten(spec, [next(it) for _ in leaves]) for spec, leaves in zip(specs, diff))
        return res if not _outermost() else tuple(_detach_tree(r) for r in res)

    result = unflatten(ospec, [o if nested else o.detach() for o in outs])
    if has_aux:
        return result, vjp_fn, (aux if nested else _detach_tree(aux))
    return result, vjp_fn


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the Jacobian times tangents[, aux]). Forward-mode AD when no forward level is
    active; inside one (jacfwd of jacfwd) the product comes from reverse mode (the vjp of a vjp)."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {primals} and tangents with structure {tangents}")
    pl, pspec = flatten(primals)
    tl, tspec = flatten(tangents)
    if len(pl) != len(tl):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure.")
    for p, t in zip(pl, tl):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have the same shape, "
                               f"got {tuple(p.shape)} and {tuple(t.shape)}")
    if any(isinstance(p, Batched) for p in pl + tl):
        raise NeedsPerSample
    if _C._current_dual_level() < 0:
        return _jvp_forward(func, pl, pspec, tl, has_aux)
    return _jvp_double_vjp(func, primals, tl, has_aux)


def _jvp_forward(func, pl, pspec, tl, has_aux):
    with _Level(), forward_ad.dual_level():
        duals = [forward_ad.make_dual(p, t) for p, t in zip(pl, tl)]
        out, aux = _split_aux(func(*unflatten(pspec, duals)), has_aux, "jvp")
        _no_batched(out)
        outs, ospec = flatten(out)
        prim, tang = [], []
        for o in outs:
            p, t = forward_ad.unpack_dual(o)
            prim.append(p)
            tang.append(_C.zeros_like(p) if t is None else t)
    res = (_detach_tree(unflatten(ospec, prim)), _detach_tree(unflatten(ospec, tang)))
    return res + (_detach_tree(aux),) if has_aux else res


def _jvp_double_vjp(func, primals, tl, has_aux):
    with _Level():
        out, fn, *aux = vjp(func, *primals, has_aux=has_aux)
        outs, ospec = flatten(out)
        dummies = [_C.zeros_like(o).requires_grad_(True) for o in outs]
        with enable_grad():
            back = flatten(fn(unflatten(ospec, dummies)))[0]
            tang = _autograd_grad(back, dummies, tl, create_graph=True)
    res = (_detach_tree(out), _detach_tree(unflatten(ospec, tang)))
    return res + (_detach_tree(aux[0]),) if has_aux else res
