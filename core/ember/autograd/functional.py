"""Function transforms: vjp, jvp (by the double-vjp trick), jacobian and hessian (reverse mode, or
forward mode with strategy="forward-mode"), hvp, vhp. Inputs and outputs are a tensor or a tuple
of tensors."""
from .. import _C
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tuple(x, what):
    single = isinstance(x, _C.TensorBase)
    t = (x,) if single else tuple(x)
    for e in t:
        if not isinstance(e, _C.TensorBase):
            raise TypeError(f"The {what} given to the function must be either a Tensor or a tuple of Tensors but "
                            f"the value at index {t.index(e)} has type {type(e).__name__}.")
    return t, single


def _prepare(inputs, create_graph):
    # Fresh leaves over the same values, so the caller's tensors and graph are left alone.
    return tuple(x.detach().requires_grad_(True) if not create_graph or not x.requires_grad else x.view_as(x)
                 for x in inputs)


def _grad(outputs, inputs, grad_outputs, create_graph, retain_graph=None, strict=False):
    from . import grad
    outs = [o for o in outputs if o.requires_grad]
    gos = [g for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not outs:
        res = (None,) * len(inputs)
    else:
        res = grad(outs, inputs, gos, create_graph=create_graph,
                   retain_graph=True if retain_graph is None else retain_graph, allow_unused=True)
    if strict and any(r is None for r in res):
        raise RuntimeError("The output of the user-provided function is independent of an input. This is not "
                           "allowed in strict mode.")
    return tuple(_C.zeros_like(i) if r is None else r for r, i in zip(res, inputs))


def _vectors(v, like, what):
    """v as a tuple matching the tensors `like`; None stands for 1 when `like` is one one-element tensor."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if the {what} is a single Tensor with a single "
                               "element.")
        return (_C.ones_like(like[0]),)
    vs, _ = _tuple(v, "v")
    if len(vs) != len(like):
        raise RuntimeError(f"v has {len(vs)} Tensors but the {what} has {len(like)}")
    for x, g in zip(like, vs):
        if x.shape != g.shape:
            raise RuntimeError(f"Mismatch in shape: v has shape {tuple(g.shape)} and the {what} has shape "
                               f"{tuple(x.shape)}")
    return vs


def _fill(result, create_graph):
    return tuple(r if create_graph else r.detach() for r in result)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at inputs."""
    ins, single_in = _tuple(inputs, "inputs")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        outs, single_out = _tuple(func(*ins), "outputs of the user-provided function")
        vs = _vectors(v, outs, "output of the user-provided function")
        res = _grad(outs, ins, vs, create_graph, strict=strict)
    outs = _fill(outs, create_graph)
    res = _fill(res, create_graph)
    return (outs[0] if single_out else outs), (res[0] if single_in else res)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, as the vjp of a vjp in a dummy vector."""
    ins, single_in = _tuple(inputs, "inputs")
    with enable_grad():
        ins = _prepare(ins, True)
        outs, single_out = _tuple(func(*ins), "outputs of the user-provided function")
        vs = _vectors(v, ins, "input to the user-provided function")
        dummies = tuple(_C.zeros_like(o).requires_grad_(True) for o in outs)
        g = _grad(outs, ins, dummies, create_graph=True)
        res = _grad(g, dummies, vs, create_graph)
    return (_fill(outs, create_graph)[0] if single_out else _fill(outs, create_graph)), \
        (_fill(res, create_graph)[0] if single_out else _fill(res, create_graph))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: for output i and input j a tensor of shape
    out_i.shape + in_j.shape. vectorize=True asks autograd.grad for all rows at once
    (is_grads_batched). strategy="forward-mode" builds it a column at a time with forward-mode AD
    (one pass per input element; the better choice when inputs are fewer than outputs); as in
    PyTorch it needs vectorize=True."""
    from . import grad
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    if strategy == "forward-mode" and not vectorize:
        raise ValueError('jacobian: `strategy="forward-mode"` only works when `vectorize=True`.')
    ins, single_in = _tuple(inputs, "inputs")
    if strategy == "forward-mode":
        if strict:
            raise RuntimeError('jacobian: `strict=True` and `strategy="forward-mode"` are not supported together '
                               '(as in PyTorch)')
        table, single_out = _jacobian_forward(func, ins, create_graph)
        return _shape_table(table, single_in, single_out)
    with enable_grad():
        ins = _prepare(ins, create_graph)
        outs, single_out = _tuple(func(*ins), "outputs of the user-provided function")
        if strict and any(not o.requires_grad for o in outs):
            raise RuntimeError("Output of the user-provided function is independent of the inputs.")
        table = []
        for o in outs:
            n = o.numel()
            if vectorize and o.requires_grad and n:
                eye = _C.eye(n, dtype=o.dtype).reshape([n] + list(o.shape))
                rows = grad([o], ins, [eye], retain_graph=True, create_graph=create_graph, allow_unused=True,
                            is_grads_batched=True)
                rows = tuple(_C.zeros([n] + list(x.shape), dtype=x.dtype) if r is None else r
                             for r, x in zip(rows, ins))
            else:
                per_row = []
                flat = o.reshape(-1)
                for k in range(n):
                    per_row.append(_grad([flat[k]], ins, [_C.ones_like(flat[k])], create_graph))
                rows = tuple(_C.stack([r[j] for r in per_row]) if per_row else
                             _C.zeros([0] + list(x.shape), dtype=x.dtype) for j, x in enumerate(ins))
            table.append(tuple((r if create_graph else r.detach()).reshape(list(o.shape) + list(x.shape))
                               for r, x in zip(rows, ins)))
    return _shape_table(table, single_in, single_out)


def _jacobian_forward(func, ins, create_graph):
    """table[i][j] = d out_i / d in_j, one forward-mode pass per input element (a column)."""
    from . import forward_ad
    columns = [[] for _ in ins]  # per input, per element: the tangents of every output
    ins = _prepare(ins, create_graph)  # leaves that require grad, so func may differentiate (hessian)
    single_out, outs = False, ()
    for j, x in enumerate(ins):
        flat_eye = _C.eye(x.numel(), dtype=x.dtype)
        for k in range(x.numel()):
            with enable_grad(), forward_ad.dual_level():
                duals = [forward_ad.make_dual(y, flat_eye[k].reshape(list(y.shape)) if i == j else _C.zeros_like(y))
                         for i, y in enumerate(ins)]
                outs, single_out = _tuple(func(*duals), "outputs of the user-provided function")
                tangents = [forward_ad.unpack_dual(o).tangent for o in outs]
                columns[j].append([_C.zeros_like(o) if t is None else (t if create_graph else t.detach())
                                   for o, t in zip(outs, tangents)])
    if not any(x.numel() for x in ins):
        outs, single_out = _tuple(func(*ins), "outputs of the user-provided function")
    table = []
    for i, o in enumerate(outs):
        row = []
        for j, x in enumerate(ins):
            cols = [c[i] for c in columns[j]]
            jac = _C.stack(cols, dim=-1) if cols else _C.zeros(list(o.shape) + [0], dtype=o.dtype)
            row.append(jac.reshape(list(o.shape) + list(x.shape)))
        table.append(tuple(row))
    return table, single_out


def _shape_table(table, single_in, single_out):
    if single_out and single_in:
        return table[0][0]
    if single_out:
        return table[0]
    if single_in:
        return tuple(row[0] for row in table)
    return tuple(table)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    ins, single_in = _tuple(inputs, "inputs")

    def gradient(*xs):
        out = func(*xs)
        if not isinstance(out, _C.TensorBase) or out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor with a single element")
        return _grad([out.reshape(())], xs, [_C.ones_like(out.reshape(()))], True)

    if outer_jacobian_strategy == "forward-mode" and not vectorize:
        raise ValueError('hessian: `outer_jacobian_strategy="forward-mode"` only works when `vectorize=True`.')
    res = jacobian(gradient, ins, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    if single_in:
        return res[0][0]
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H)."""
    ins, single_in = _tuple(inputs, "inputs")
    vs = _vectors(v, ins, "input to the user-provided function")
    with enable_grad():
        ins = _prepare(ins, True)
        out = func(*ins)
        g = _grad([out], ins, [_C.ones_like(out)], True)
        res = _grad(g, ins, vs, create_graph)
    out = out if create_graph else out.detach()
    res = _fill(res, create_graph)
    return out, (res[0] if single_in else res)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v); equal to vhp since the Hessian is symmetric."""
    return vhp(func, inputs, v, create_graph, strict)
