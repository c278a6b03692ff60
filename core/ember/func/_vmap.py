"""vmap with PyTorch's arguments and messages (in_dims/out_dims as ints, None or nested tuples,
randomness, chunk_size).

Two paths. The rules path runs the function once with each mapped input as a _batched.Batched value
(the whole batch, read as one sample): ops with a batching rule run once on the batch, the others
once per sample (see _batched.fallback). The per-sample path runs the whole function once per
sample and stacks the outputs; vmap takes it for randomness="different" (each sample draws its
own numbers), inside another vmap's function (the outer one's rules see the inner calls), and when
a transform such as grad meets a batched value (autograd sees single tensors), rerunning from the
start. Samples of either path refuse .item(), data-dependent control flow and in-place writes
into unbatched tensors, as PyTorch's batched tensors do. chunk_size is accepted and checked; the
batch is never split (the results are the same)."""
import functools

from .. import _C
from . import _batched, _sample
from ._tree import broadcast_prefix, describe, flatten, unflatten


def _fname(func):
    return getattr(func, "__name__", repr(func))


def _check_randomness_arg(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over a dimension of its inputs: vmap(f)(x)[i] == f(x[i])."""
    _check_randomness_arg(randomness)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)
    return wrapped


def _is_dim(d):
    return d is None or (isinstance(d, int) and not isinstance(d, bool))


def _input_dims(func, in_dims, args):
    prefix = f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"{prefix}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_fname(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
                         "are trying to vmap over a function with no inputs. The latter is unsupported.")
    leaves, spec = flatten(args)
    dims = broadcast_prefix(in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args), args, _is_dim)
    if dims is None:
        raise ValueError(f"{prefix}: in_dims is not compatible with the structure of `inputs`. in_dims has "
                         f"structure {describe(flatten(in_dims)[1])} but inputs has structure {describe(spec)}.")
    sizes = []
    for x, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(x, _C.TensorBase):
            raise ValueError(f"{prefix}: Got in_dim={d} for an input but the input is of type {type(x)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the respective in_dim")
        n = x.dim()
        if not -n <= d < n:
            raise ValueError(f"{prefix}: Got in_dim={d} for some input, but that input is a Tensor of "
                             f"dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}.")
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError(f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>): at least one input must be a "
                         "Tensor that vmap maps over (every in_dim is None or no input is a Tensor)")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return leaves, spec, dims, sizes[0]


def _sample_args(leaves, spec, dims, b):
    out = []
    for x, d in zip(leaves, dims):
        if d is None:
            out.append(x)
        elif b is None:  # an empty batch: a stand-in sample to learn the outputs' shapes
            shape = list(x.shape)
            del shape[d % x.dim()]
            out.append(_sample.as_sample(x.new_zeros(shape)))
        else:
            out.append(_sample.as_sample(x.select(d, b)))
    return unflatten(spec, out)


def _run_samples(func, leaves, spec, dims, batch, randomness, kwargs):
    gen = _C.default_generator
    start = gen.get_state() if randomness != "different" else None
    results = []
    _sample.batch_sizes.append(batch)
    try:
        for b in (range(batch) if batch else [None]):
            if randomness == "same":
                gen.set_state(start)
            results.append(func(*_sample_args(leaves, spec, dims, b), **kwargs))
            if randomness == "error" and not _C.equal(gen.get_state(), start):
                gen.set_state(start)
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either "
                                   "use the 'same' or 'different' randomness flags on vmap or perform the "
                                   "randomness operation out of vmap")
    finally:
        _sample.batch_sizes.pop()
    return results


def _vmap_call(func, in_dims, out_dims, randomness, args, kwargs):
    leaves, spec, dims, batch = _input_dims(func, in_dims, args)
    nested = any(isinstance(x, _sample.VmapSample) for x in leaves)
    if batch and not nested and randomness != "different":
        state = _C.default_generator.get_state()
        try:
            return _vmap_batched(func, out_dims, leaves, spec, dims, batch, randomness, kwargs)
        except _batched.NeedsPerSample:  # a transform (grad, jvp...) inside: rerun per sample
            _C.default_generator.set_state(state)
    results = _run_samples(func, leaves, spec, dims, batch, randomness, kwargs)
    outs0, ospec = flatten(results[0])
    odims = _output_dims(func, out_dims, results[0], ospec)
    per_leaf = [flatten(r)[0] for r in results]
    stacked = []
    for i, (o, od) in enumerate(zip(outs0, odims)):
        if od is None:
            if any(isinstance(r[i], _sample.VmapSample) for r in per_leaf) and not nested:
                raise ValueError(_out_dim_none_error(func))
            stacked.append(o)
            continue
        if not isinstance(o, _C.TensorBase):
            raise ValueError(f"vmap({_fname(func)}, ...): `{_fname(func)}` must only return Tensors, got type "
                             f"{type(o)}. Did you mean to set out_dims= to None for output?")
        n = o.dim() + 1
        _check_out_dim(o, od)
        samples = [_sample.as_plain(r[i]) for r in per_leaf]
        if batch == 0:
            shape = list(samples[0].shape)
            shape.insert(od % n, 0)
            out = samples[0].new_empty(shape)
        else:
            out = _C.stack(samples, od)  # dispatches to the batching rule when samples are batched
        stacked.append(_sample.as_sample(out) if nested else out)
    return unflatten(ospec, stacked)


def _output_dims(func, out_dims, out, ospec):
    if not (_is_dim(out_dims) or isinstance(out_dims, tuple)):
        raise ValueError(f"vmap({_fname(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                         f"python collection of ints representing where in the outputs the vmapped dimension "
                         f"should appear.")
    odims = broadcast_prefix(out_dims, out, _is_dim)
    if odims is None:
        raise ValueError(f"vmap({_fname(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                         f"with the structure of `outputs`. out_dims has structure {describe(flatten(out_dims)[1])} "
                         f"but outputs has structure {describe(ospec)}.")
    return odims


def _check_out_dim(o, od):
    n = o.dim() + 1
    if not -n <= od < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {od})")
    return od % n


def _vmap_batched(func, out_dims, leaves, spec, dims, batch, randomness, kwargs):
    """The function run once on Batched inputs (the batching rules' path)."""
    gen = _C.default_generator
    start = gen.get_state()
    inputs = [x if d is None else _batched.wrap(x.movedim(d, 0)) for x, d in zip(leaves, dims)]
    _batched.randomness.append(randomness)
    _sample.batch_sizes.append(batch)
    try:
        out = func(*unflatten(spec, inputs), **kwargs)
    finally:
        _batched.randomness.pop()
        _sample.batch_sizes.pop()
    if randomness == "error" and not _C.equal(gen.get_state(), start):
        raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the "
                           "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
                           "of vmap")
    outs, ospec = flatten(out)
    odims = _output_dims(func, out_dims, out, ospec)
    result = []
    for o, od in zip(outs, odims):
        if od is None:
            if isinstance(o, _batched.Batched):
                raise ValueError(_out_dim_none_error(func))
            result.append(o)
            continue
        if not isinstance(o, _C.TensorBase):
            raise ValueError(f"vmap({_fname(func)}, ...): `{_fname(func)}` must only return Tensors, got type "
                             f"{type(o)}. Did you mean to set out_dims= to None for output?")
        od = _check_out_dim(o, od)
        if isinstance(o, _batched.Batched):
            with _batched.DisableTorchFunctionSubclass():
                result.append(o._value.movedim(0, od))
        else:  # the same for every sample: broadcast along the batch
            o = _sample.as_plain(o)
            result.append(o.unsqueeze(od).expand(o.shape[:od] + (batch,) + o.shape[od:]))
    return unflatten(ospec, result)


def _out_dim_none_error(func):
    return f"vmap({_fname(func)}, ...): `{_fname(func)}` can not return a BatchedTensor when out_dim is None"
