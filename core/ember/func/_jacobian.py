"""jacrev (one vjp per output element), jacfwd (one jvp per input element) and hessian
(jacfwd of jacrev), with PyTorch's argnums/has_aux and output structure: each output leaf becomes
its Jacobian (out.shape + in.shape), or a tuple of them when argnums is a tuple."""
import functools

from .. import _C
from ._grad import _Level, _check_argnums, _detach_tree, _split_aux, jvp, vjp
from ._tree import flatten, unflatten


def _basis(t):
    """The rows of the identity over t's elements, each shaped as t."""
    n = t.numel()
    eye = _C.eye(n, dtype=t.dtype, device=t.device) if n else _C.zeros(0, 0, dtype=t.dtype)
    return [eye[i].reshape(t.shape) for i in range(n)]


def _stack_rows(rows, lead_shape, tail_shape, like):
    if not rows:
        return _C.zeros(tuple(lead_shape) + tuple(tail_shape), dtype=like.dtype, device=like.device)
    return _C.stack(rows).reshape(tuple(lead_shape) + tuple(tail_shape))


def _select(args, argnums):
    return tuple(args[a] for a in argnums)


def _partial(func, args, argnums, kwargs):
    """func as a function of the inputs at argnums only."""
    def inner(*diff):
        full = list(args)
        for a, v in zip(argnums, diff):
            full[a] = v
        return func(*full, **kwargs)
    return inner


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of func with respect to the inputs at argnums, by reverse mode."""
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        nums = _check_argnums(argnums, len(args))
        with _Level():
            res = vjp(_partial(func, args, nums, kwargs), *_select(args, nums), has_aux=has_aux)
            out, vjp_fn = res[0], res[1]
            outs, ospec = flatten(out)
            in_leaves = [flatten(args[a]) for a in nums]
            jac_leaves = []
            for i, o in enumerate(outs):
                rows = []  # rows[k]: the vjp of the k-th unit cotangent of output i, per input leaf
                for e in _basis(o):
                    cts = [e if j == i else _C.zeros_like(x) for j, x in enumerate(outs)]
                    rows.append(flatten(vjp_fn(unflatten(ospec, cts)))[0])
                per_input = []
                k = 0
                for leaves, spec in in_leaves:
                    js = [_stack_rows([r[k + m] for r in rows], o.shape, x.shape, o) for m, x in enumerate(leaves)]
                    k += len(leaves)
                    per_input.append(unflatten(spec, js))
                jac_leaves.append(per_input[0] if isinstance(argnums, int) else tuple(per_input))
            result = unflatten(ospec, jac_leaves)
        if has_aux:
            return _detach_tree(result), _detach_tree(res[2])
        return _detach_tree(result)
    return wrapped


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func with respect to the inputs at argnums, by forward mode."""
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        nums = _check_argnums(argnums, len(args))
        primals = _select(args, nums)
        pleaves, pspec = flatten(primals)
        f = _partial(func, args, nums, kwargs)
        columns = []  # per input leaf: a list (per element) of flattened output tangents
        out = aux = None
        with _Level():
            for li, p in enumerate(pleaves):
                cols = []
                for e in _basis(p):
                    tangents = [e if j == li else _C.zeros_like(x) for j, x in enumerate(pleaves)]
                    r = jvp(f, primals, unflatten(pspec, tangents), has_aux=has_aux)
                    out = r[0]
                    aux = r[2] if has_aux else None
                    cols.append(flatten(r[1])[0])
                columns.append(cols)
            if out is None:  # no input elements: one call for the output structure
                out, aux = _split_aux(f(*primals), has_aux, "jacfwd")
        outs, ospec = flatten(out)
        jac_leaves = []
        for i, o in enumerate(outs):
            per_leaf = []
            for li, p in enumerate(pleaves):
                cols = [c[i] for c in columns[li]]
                m = _C.stack(cols, -1) if cols else _C.zeros(tuple(o.shape) + (0,), dtype=o.dtype)
                per_leaf.append(m.reshape(tuple(o.shape) + tuple(p.shape)))
            it = iter(per_leaf)
            per_input = [unflatten(spec, [next(it) for _ in leaves])
                         for leaves, spec in (flatten(args[a]) for a in nums)]
            jac_leaves.append(per_input[0] if isinstance(argnums, int) else tuple(per_input))
        result = _detach_tree(unflatten(ospec, jac_leaves))
        if has_aux:
            return result, _detach_tree(aux)
        return result
    return wrapped


def hessian(func, argnums=0):
    """The Hessian of func (a scalar-valued function) with respect to the inputs at argnums."""
    return jacfwd(jacrev(func, argnums), argnums)
