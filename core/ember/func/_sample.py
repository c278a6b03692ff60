"""The per-sample tensors vmap hands to the function: a Tensor subclass (through __torch_function__)
whose values must not leave the vectorized computation, so .item(), bool() and in-place writes of a
sample into an unbatched tensor raise PyTorch's vmap errors instead of silently running per sample."""
from .._tensor import Tensor
from ..overrides import DisableTorchFunctionSubclass, _tensor_torch_function

_ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
         "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere "
         "inside PyTorch internals, please file a bug report.")
_CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We "
                 "don't support that yet, please file an issue at https://github.com/pytorch/pytorch/issues .")

# The batch sizes of the vmaps running, innermost last (for the in-place error's broadcast shape).
batch_sizes = []

_ITEM_LIKE = {"item", "tolist", "numpy", "__int__", "__float__", "__index__", "__complex__"}


class VmapSample(Tensor):
    """One sample of a vmapped input, or a value computed from one."""

    _is_batched = False  # True for _batched.Batched, which holds a whole batch

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in _ITEM_LIKE:
            raise RuntimeError(_ITEM)
        if name.endswith("_") and not name.endswith("__") and args and isinstance(args[0], Tensor) \
                and not isinstance(args[0], VmapSample) and _any_sample(args[1:], kwargs):
            _inplace_error(args[0], args[1:], kwargs)
        return _tensor_torch_function(cls, func, types, args, kwargs)

    def item(self):
        raise RuntimeError(_ITEM)

    def tolist(self):
        raise RuntimeError(_ITEM)

    def numpy(self, *, force=False):
        raise RuntimeError(_ITEM)

    def __bool__(self):
        raise RuntimeError(_CONTROL_FLOW)

    def __int__(self):
        raise RuntimeError(_ITEM)

    def __float__(self):
        raise RuntimeError(_ITEM)

    def __index__(self):
        raise RuntimeError(_ITEM)


def _any_sample(args, kwargs):
    vals = list(args) + list((kwargs or {}).values())
    return any(isinstance(v, VmapSample) for v in vals)


def _inplace_error(target, args, kwargs):
    # In-place into a tensor the vmap does not map over would need it to hold every sample's result.
    import ember
    with DisableTorchFunctionSubclass():
        shapes = [tuple(v.shape) for v in list(args) + list((kwargs or {}).values()) if isinstance(v, Tensor)]
        full = list(ember.broadcast_shapes(tuple(target.shape), *shapes))
    raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the broadcast shape "
                       f"{[batch_sizes[-1]] + full}")


def as_sample(t):
    return t if isinstance(t, VmapSample) else t.as_subclass(VmapSample)


def as_plain(t):
    """t as a plain Tensor (a batched value stays as it is: its batch is its meaning)."""
    return t.as_subclass(Tensor) if isinstance(t, VmapSample) and not t._is_batched else t
