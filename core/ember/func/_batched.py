"""vmap's batched tensors: one Tensor-subclass object per vmapped value, holding the whole batch
(`_value`, batch dimension first) while reading as one sample (its own tensor data is the view
value[0], so shape, dtype and dim() are the per-sample ones). Every ember call on it arrives in
__torch_function__, which applies a batching rule (the op run once on the whole batch, see
_batch_rules) or, for ops without one, the per-sample fallback: the op called on each sample and the
results stacked."""
from .. import _C
from .._tensor import Tensor
from ..overrides import DisableTorchFunctionSubclass  # noqa: F401  (used by _vmap too)
from . import _sample


# op name -> batching rule, filled by _batch_rules (which ember.func imports)
RULES = {}
# what a rule returns for an operator that does not take the other operand (Python then tries the
# reflected one)
OPERATOR_NOT_IMPLEMENTED = object()


class Batched(_sample.VmapSample):
    """A vmapped value: `_value` holds every sample, the batch dimension first."""

    _is_batched = True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name in _sample._ITEM_LIKE:
            raise RuntimeError(_sample._ITEM)
        if name == "__setitem__" and not isinstance(args[0], Batched) and isinstance(args[2], Batched):
            _sample._inplace_error(args[0], args[2:], None)
        if name.endswith("_") and not name.endswith("__") and args and isinstance(args[0], Tensor) \
                and not isinstance(args[0], Batched) and _sample._any_sample(args[1:], kwargs):
            _sample._inplace_error(args[0], args[1:], kwargs)
        rule = RULES.get(name)
        with DisableTorchFunctionSubclass():
            if rule is not None:
                out = rule(func, args, kwargs)
                if out is OPERATOR_NOT_IMPLEMENTED:
                    return NotImplemented
                if out is not NotImplemented:
                    return out
            return fallback(func, args, kwargs)

    def __repr__(self):
        with DisableTorchFunctionSubclass():
            return f"BatchedTensor(lvl=1, bdim=0, value=\n{self._value!r}\n)"


class NeedsPerSample(Exception):
    """Raised by a transform (grad, jvp...) given batched inputs: vmap then reruns per sample."""


def batch_size(args, kwargs=None):
    for a in _leaves(args, kwargs):
        if isinstance(a, Batched):
            return a._value.shape[0]
    raise AssertionError("no batched argument")


def wrap(value):
    """A Batched object over value (the batch dimension first, at least one sample)."""
    b = value.select(0, 0).as_subclass(Batched)
    b._value = value
    return b


def wrap_result(out):
    if isinstance(out, _C.TensorBase):
        return wrap(out)
    if type(out) in (tuple, list):
        return type(out)(wrap_result(o) for o in out)
    if isinstance(out, tuple):  # ember.return_types' struct sequences
        return type(out)([wrap_result(o) for o in out])
    return out


def value(x):
    return x._value if isinstance(x, Batched) else x


def _leaves(args, kwargs=None):
    for a in list(args) + list((kwargs or {}).values()):
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a


def _sample_of(x, b):
    if isinstance(x, Batched):
        return x._value[b]
    if type(x) in (list, tuple):
        return type(x)(_sample_of(e, b) for e in x)
    return x


# The randomness mode of the running vmap (the per-sample fallback repeats or checks the generator).
randomness = ["error"]


def fallback(func, args, kwargs):
    """func on each sample, the results stacked: exact for any op, one call per sample. In-place
    ops write through the samples into the batch and return their first argument."""
    n = batch_size(args, kwargs)
    gen = _C.default_generator
    start = gen.get_state()
    results = []
    for b in range(n):
        if randomness[-1] == "same":
            gen.set_state(start)
        results.append(func(*_sample_of(args, b), **{k: _sample_of(v, b) for k, v in kwargs.items()}))
        if randomness[-1] == "error" and not _C.equal(gen.get_state(), start):
            gen.set_state(start)
            raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                               "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                               "operation out of vmap")
    name = getattr(func, "__name__", "")
    if args and isinstance(args[0], Batched) and (name.endswith("_") and not name.endswith("__")
                                                  or name.startswith("__i") or name == "__setitem__"):
        return None if name == "__setitem__" else args[0]
    return _stack_results(results, func)


def _stack_results(results, func):
    first = results[0]
    if isinstance(first, _C.TensorBase):
        return wrap(_C.stack(results))
    if isinstance(first, tuple) and all(isinstance(r, _C.TensorBase) for r in first):
        parts = [wrap(_C.stack([r[i] for r in results])) for i in range(len(first))]
        return type(first)(parts) if type(first) is not tuple else tuple(parts)
    if first is None or isinstance(first, (bool, int, float)) and all(r == first for r in results):
        return first
    raise RuntimeError(f"vmap: the per-sample fallback of {getattr(func, '__name__', func)} got a result of type "
                       f"{type(first).__name__} that differs across samples or is not a Tensor")
