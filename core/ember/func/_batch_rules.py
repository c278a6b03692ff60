"""Batching rules: ops run once on the whole batch (batch dimension first) instead of once per sample.
Each rule takes (func, args, kwargs) with Batched arguments and returns a Batched result, or
NotImplemented to leave the call to the per-sample fallback (any case a rule does not cover exactly:
an out= argument, a batched argument where the rule expects a plain one, a 0-d sample...).

Families: elementwise ops (the op database's `elementwise` ops and the operators: batched arguments
get singleton dims after the batch dim so broadcasting lines samples up), reductions and scans
(dims shift by one; no dim means the sample's elements), the matmul family, views and shape ops,
same-shape ops (clone, casts, *_like), stack/cat, basic and single-tensor indexing, and layers that
take any leading dims (linear, layer_norm, softmax) or a batch dim (convolutions, pooling)."""
from .. import _C
from ._batched import OPERATOR_NOT_IMPLEMENTED, RULES, Batched, batch_size, value, wrap, wrap_result

# Elementwise ops of the op database (`elementwise: true` or a pointwise kernel; tests/func checks
# each name against core/ops), plus the operators and a few composite elementwise functions.
ELEMENTWISE = set("""
abs absolute acos acosh add addcdiv addcmul arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh atan
atan2 atanh bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor ceil celu clamp
clamp_max clamp_min clip copysign cos cosh deg2rad digamma div elu eq erf erfc erfinv exp exp2 expm1 fix floor
floor_divide fmax fmin fmod frac gcd ge gelu gt hardshrink hardsigmoid hardswish hardtanh heaviside hypot i0 igamma
igammac isfinite isinf isnan isneginf isposinf isreal lcm ldexp le leaky_relu lerp lgamma log log10 log1p log2
logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logit logsigmoid lt maximum minimum mish mul
nan_to_num ne neg negative nextafter positive pow rad2deg reciprocal relu remainder round rsqrt sgn sigmoid sign
signbit silu sin sinc sinh softplus softshrink softsign sqrt sub tan tanh tanhshrink threshold true_divide trunc
xlogy
""".split()) | {"where", "square", "multiply", "subtract", "divide", "greater", "less", "not_equal", "greater_equal",
                "less_equal", "relu6", "selu"}
OPERATORS = {f"__{n}__" for n in "add radd iadd sub rsub isub mul rmul imul truediv rtruediv itruediv floordiv "
             "rfloordiv ifloordiv mod rmod imod pow rpow ipow and rand iand or ror ior xor rxor ixor lshift rlshift "
             "ilshift rshift rrshift irshift neg abs invert lt le gt ge eq ne".split()}

REDUCTIONS = set("sum mean prod amax amin max min argmax argmin std var norm logsumexp all any nansum nanmean "
                 "count_nonzero std_mean var_mean aminmax".split())
SCANS = set("cumsum cumprod cummax cummin logcumsumexp softmax log_softmax".split())
SAME_SHAPE = set("clone contiguous detach float double half bfloat16 int long short bool byte char zeros_like "
                 "ones_like empty_like full_like _to_copy type_as".split())


def _is_tensor(x):
    return isinstance(x, _C.TensorBase)


def _batched_args(args, kwargs):
    return [a for a in list(args) + list(kwargs.values()) if isinstance(a, Batched)]


def _ldim(x):
    """The dimensionality of one sample of x (x itself when it is not batched)."""
    return x._value.dim() - 1 if isinstance(x, Batched) else x.dim()


def _pad(v, rank):
    """A batch value (B, *s) with singleton dims after B until a sample has `rank` dims."""
    while v.dim() - 1 < rank:
        v = v.unsqueeze(1)
    return v


def elementwise(func, args, kwargs):
    if "out" in kwargs or any(isinstance(a, (list, tuple)) for a in args):
        return NotImplemented
    tensors = [a for a in list(args) + list(kwargs.values()) if _is_tensor(a)]
    rank = max(_ldim(t) for t in tensors)
    name = func.__name__
    inplace = name.startswith("__i") or (name.endswith("_") and not name.endswith("__"))
    if inplace and (not isinstance(args[0], Batched) or _ldim(args[0]) < rank):
        return NotImplemented

    def lift(a):
        return _pad(a._value, rank) if isinstance(a, Batched) else a
    out = func(*[lift(a) for a in args], **{k: lift(v) for k, v in kwargs.items()})
    if inplace:
        return args[0]
    if out is NotImplemented:  # an operator with an operand it does not take: Python's reflected one next
        return OPERATOR_NOT_IMPLEMENTED
    return wrap_result(out)


def _shift(d, rank):
    if not isinstance(d, int) or isinstance(d, bool) or not -rank <= d < max(rank, 1):
        raise _Unsupported
    return d % rank + 1


def _shift_dims(dims, rank):
    if isinstance(dims, (list, tuple)):
        if not dims:  # an empty dim list means every dim to some reductions
            raise _Unsupported
        return type(dims)(_shift(d, rank) for d in dims)
    return _shift(dims, rank)


class _Unsupported(Exception):
    """A case a rule leaves to the per-sample fallback (which raises PyTorch's error if it is one)."""


def _only_first_batched(args, kwargs):
    return isinstance(args[0], Batched) and len(_batched_args(args[1:], kwargs)) == 0


def reduction(func, args, kwargs):
    if not args or not _only_first_batched(args, kwargs) or "out" in kwargs:
        return NotImplemented
    x = args[0]
    rank = _ldim(x)
    if rank == 0:
        return NotImplemented
    rest, kw = list(args[1:]), dict(kwargs)
    if func.__name__ in ("max", "min") and rest and _is_tensor(rest[0]):
        return elementwise(func, args, kwargs)
    try:
        if rest and (isinstance(rest[0], (int, list, tuple)) and not isinstance(rest[0], bool)) and \
                func.__name__ not in ("norm",):
            rest[0] = _shift_dims(rest[0], rank)
        elif kw.get("dim") is not None:
            kw["dim"] = _shift_dims(kw["dim"], rank)
        elif func.__name__ == "norm" and len(rest) > 1 and rest[1] is not None:
            rest[1] = _shift_dims(rest[1], rank)
        elif func.__name__ in SCANS or func.__name__ in ("logsumexp", "std_mean", "var_mean", "aminmax"):
            return NotImplemented
        else:  # every element of a sample
            flat = x._value.reshape(x._value.shape[0], -1)
            if rest or any(k not in ("dtype", "keepdim") for k in kw) or kw.get("keepdim"):
                return NotImplemented
            kw.pop("keepdim", None)
            whole = {"max": _C.amax, "min": _C.amin}.get(func.__name__, func)  # max(x) is a value, not a pair
            return wrap_result(whole(flat, 1, **kw))
    except _Unsupported:
        return NotImplemented
    return wrap_result(func(x._value, *rest, **kw))


def matmul(func, args, kwargs):
    if kwargs or len(args) != 2 or not all(_is_tensor(a) for a in args):
        return NotImplemented
    x, y = (args[1], args[0]) if func.__name__ == "__rmatmul__" else args
    rx, ry = _ldim(x), _ldim(y)
    need = {"mm": (2, 2), "mv": (2, 1), "dot": (1, 1), "vdot": (1, 1), "bmm": (3, 3)}.get(func.__name__)
    if (need and (rx, ry) != need) or rx == 0 or ry == 0 or func.__name__ == "vdot":
        return NotImplemented
    xv = x._value if isinstance(x, Batched) else x.unsqueeze(0)
    yv = y._value if isinstance(y, Batched) else y.unsqueeze(0)
    if rx == 1:
        xv, rx = xv.unsqueeze(-2), 2
    if ry == 1:
        yv, ry = yv.unsqueeze(-1), 2
    rank = max(rx, ry)
    out = _C.matmul(_pad(xv, rank), _pad(yv, rank))
    if _ldim(y) == 1:
        out = out.squeeze(-1)
    if _ldim(x) == 1:
        out = out.squeeze(-1 if _ldim(y) == 1 else -2)
    return wrap(out)


def _sizes(rest):
    if len(rest) == 1 and isinstance(rest[0], (list, tuple)):
        return list(rest[0])
    return list(rest)


def view_rule(func, args, kwargs):
    if not _only_first_batched(args, kwargs):
        return NotImplemented
    x, rest, name = args[0], list(args[1:]), func.__name__
    v, rank = x._value, _ldim(x)
    n = v.shape[0]
    try:
        if name in ("reshape", "view"):
            shape = _sizes(rest) if rest else list(kwargs.get("shape", kwargs.get("size", ())))
            if any(not isinstance(s, int) for s in shape):
                return NotImplemented
            return wrap(getattr(v, name)([n] + shape))
        if kwargs:
            return NotImplemented
        if name == "unsqueeze":
            return wrap(v.unsqueeze(_shift(rest[0], rank + 1)))
        if name in ("transpose", "swapaxes", "swapdims"):
            return wrap(v.transpose(_shift(rest[0], rank), _shift(rest[1], rank)))
        if name == "permute":
            return wrap(v.permute([0] + [_shift(d, rank) for d in _sizes(rest)]))
        if name == "t":
            return wrap(v if rank < 2 else v.transpose(1, 2))
        if name == "flatten":
            if rank == 0:
                return NotImplemented
            start, end = (rest + [0, -1][len(rest):])[:2]
            return wrap(v.flatten(_shift(start, rank), _shift(end, rank)))
        if name == "squeeze":
            if not rest:
                dims = [d + 1 for d in range(rank) if v.shape[d + 1] == 1]
                return wrap(v.squeeze(tuple(dims)) if dims else v)
            return wrap(v.squeeze(_shift_dims(rest[0], rank)))
        if name == "expand":
            sizes = _sizes(rest)
            return wrap(_pad(v, len(sizes)).expand([n] + sizes))
        if name in ("select", "narrow", "unbind", "split", "chunk", "diagonal", "movedim", "moveaxis"):
            return _dim_arg_rule(name, v, rest, rank)
    except _Unsupported:
        return NotImplemented
    return NotImplemented


def _dim_arg_rule(name, v, rest, rank):
    if name == "select":
        return wrap(v.select(_shift(rest[0], rank), rest[1]))
    if name == "narrow":
        return wrap(v.narrow(_shift(rest[0], rank), rest[1], rest[2]))
    if name == "unbind":
        return tuple(wrap(p) for p in v.unbind(_shift(rest[0] if rest else 0, rank)))
    if name in ("split", "chunk"):
        dim = _shift(rest[1] if len(rest) > 1 else 0, rank)
        return tuple(wrap(p) for p in getattr(v, name)(rest[0], dim))
    if name == "diagonal":
        offset, d1, d2 = (rest + [0, 0, 1][len(rest):])[:3]
        return wrap(v.diagonal(offset, _shift(d1, rank), _shift(d2, rank)))
    src, dst = rest
    return wrap(v.movedim(_shift_dims(src, rank), _shift_dims(dst, rank)))


def same_shape(func, args, kwargs):
    if not _only_first_batched(args, kwargs) or "out" in kwargs:
        return NotImplemented
    return wrap_result(func(args[0]._value, *args[1:], **kwargs))


def new_factory(func, args, kwargs):
    """new_zeros/new_ones/new_full/new_empty/new_tensor: made from one sample's dtype and device, the
    same for every sample (vmap's output broadcasts it), as PyTorch's."""
    if not _only_first_batched(args, kwargs):
        return NotImplemented
    return func(args[0]._value.select(0, 0), *args[1:], **kwargs)


def stack_cat(func, args, kwargs):
    tensors = args[0] if args else kwargs.get("tensors")
    dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
    if not isinstance(tensors, (list, tuple)) or not tensors or "out" in kwargs or set(kwargs) - {"tensors", "dim"}:
        return NotImplemented
    n = batch_size(tensors)
    rank = _ldim(tensors[0])
    vals = [t._value if isinstance(t, Batched) else t.unsqueeze(0).expand((n,) + tuple(t.shape)) for t in tensors]
    try:
        d = _shift(dim, rank + 1 if func.__name__ == "stack" else rank)
    except _Unsupported:
        return NotImplemented
    return wrap(func(vals, d))


def _basic_index(index):
    items = index if isinstance(index, tuple) else (index,)
    tensors = [i for i in items if _is_tensor(i)]
    ints = [i for i in items if isinstance(i, int) and not isinstance(i, bool)]
    ok = all(i is None or i is Ellipsis or isinstance(i, slice) or _is_tensor(i) or i in ints for i in items)
    # one plain tensor index keeps its place only without ints (which would count as advanced too)
    return items if ok and (not tensors or (len(tensors) == 1 and not ints and not isinstance(tensors[0], Batched))) \
        else None


def getitem(func, args, kwargs):
    x, index = args
    items = _basic_index(index) if isinstance(x, Batched) else None
    if items is None:
        return NotImplemented
    return wrap(x._value[(slice(None),) + items])


def setitem(func, args, kwargs):
    x, index, val = args
    items = _basic_index(index) if isinstance(x, Batched) else None
    if items is None:
        return NotImplemented
    region = x._value[(slice(None),) + items]
    v = value(val)
    if isinstance(val, Batched):
        v = _pad(v, region.dim() - 1)
    x._value[(slice(None),) + items] = v
    return None


def leading_dims(func, args, kwargs):
    """Layers that take any number of leading dims: the batch dim is one more."""
    if not _only_first_batched(args, kwargs) or _ldim(args[0]) == 0:
        return NotImplemented
    name = func.__name__
    rest, kw = list(args[1:]), dict(kwargs)
    if name in ("softmax", "log_softmax"):
        try:
            if rest and rest[0] is not None:
                rest[0] = _shift(rest[0], _ldim(args[0]))
            elif kw.get("dim") is not None:
                kw["dim"] = _shift(kw["dim"], _ldim(args[0]))
            else:
                return NotImplemented
        except _Unsupported:
            return NotImplemented
    return wrap_result(func(args[0]._value, *rest, **kw))


_SPATIAL = {"conv1d": 1, "conv2d": 2, "conv3d": 3, "max_pool1d": 1, "max_pool2d": 2, "max_pool3d": 3,
            "avg_pool1d": 1, "avg_pool2d": 2, "avg_pool3d": 3, "adaptive_avg_pool1d": 1, "adaptive_avg_pool2d": 2,
            "adaptive_max_pool2d": 2, "conv_transpose1d": 1, "conv_transpose2d": 2, "conv_transpose3d": 3}


def batch_dim_layer(func, args, kwargs):
    """Convolutions and pooling: the vmap batch folds into the layer's batch dim (N) and back."""
    if not _only_first_batched(args, kwargs):
        return NotImplemented
    v = args[0]._value
    rank, spatial = _ldim(args[0]), _SPATIAL[func.__name__]
    n = v.shape[0]
    if rank == spatial + 1:  # unbatched samples: the vmap batch is the layer's batch
        return wrap_result(func(v, *args[1:], **kwargs))
    if rank != spatial + 2:
        return NotImplemented
    out = func(v.reshape((n * v.shape[1],) + tuple(v.shape[2:])), *args[1:], **kwargs)
    if isinstance(out, tuple):
        return tuple(wrap(o.reshape((n, -1) + tuple(o.shape[1:]))) for o in out)
    return wrap(out.reshape((n, -1) + tuple(out.shape[1:])))


for _n in ELEMENTWISE | OPERATORS:
    RULES[_n] = elementwise
    RULES[_n + "_"] = elementwise
for _n in REDUCTIONS | {"cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"}:
    RULES[_n] = reduction
for _n in ("matmul", "mm", "mv", "dot", "bmm", "__matmul__", "__rmatmul__"):
    RULES[_n] = matmul
for _n in ("reshape", "view", "unsqueeze", "transpose", "swapaxes", "swapdims", "permute", "t", "flatten", "squeeze",
           "expand", "select", "narrow", "unbind", "split", "chunk", "diagonal", "movedim", "moveaxis"):
    RULES[_n] = view_rule
for _n in SAME_SHAPE:
    RULES[_n] = same_shape
RULES.update({"stack": stack_cat, "cat": stack_cat, "concat": stack_cat, "__getitem__": getitem,
              "__setitem__": setitem, "linear": leading_dims, "layer_norm": leading_dims, "softmax": leading_dims,
              "log_softmax": leading_dims})
for _n in _SPATIAL:
    RULES[_n] = batch_dim_layer
for _n in ("new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"):
    RULES[_n] = new_factory
