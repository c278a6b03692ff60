"""Custom differentiable ops: subclass Function with forward and backward (staticmethods); apply()
runs forward without recording and puts one node in the graph whose backward calls yours."""
import functools

from .. import _C
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ctx of forward/backward: saved tensors, input flags, and the marks set in forward."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _C.TensorBase):
                raise TypeError(f"save_for_backward can only save tensors, but argument is of type {type(t).__name__}")
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._version for t in tensors)

    @property
    def saved_tensors(self):
        if getattr(self, "_released", False):
            raise RuntimeError("Trying to backward through the graph a second time (or directly access saved tensors "
                               "after they have already been freed). Specify retain_graph=True if you need to "
                               "backward through the graph a second time.")
        saved = getattr(self, "_saved", ())
        for i, (t, v) in enumerate(zip(saved, self._saved_versions)):
            if t is not None and t._version != v:
                raise RuntimeError(f"one of the variables needed for gradient computation has been modified by an "
                                   f"inplace operation: saved tensor {i} of {type(self).__name__} is at version "
                                   f"{t._version}; expected version {v} instead.")
        return saved

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self._materialize = bool(value)


class _Meta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (FunctionCtx,), {"_forward_cls": cls})


class Function(metaclass=_Meta):
    """Base class of custom autograd ops. Either forward(ctx, *args) or forward(*args) together with
    setup_context(ctx, inputs, output); backward(ctx, *grad_outputs) returns one gradient per input
    of forward (None for non-tensors and inputs that need none)."""

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    setup_context = None

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = cls._backward_cls()
        tensor_args = [a if isinstance(a, _C.TensorBase) else None for a in args]
        ctx.needs_input_grad = tuple(a is not None and a.requires_grad for a in tensor_args)
        tangents = _tangents(tensor_args)
        if tangents is not None and cls.jvp is Function.jvp:
            Function.jvp(ctx)  # raises: forward mode needs the Function's own jvp
        _C._suspend_forward_ad(True)  # forward sees primals; its outputs' tangents come from jvp
        try:
            with no_grad():
                if cls.setup_context is not None:
                    out = cls.forward(*args, **kwargs)
                    cls.setup_context(ctx, args, out)
                else:
                    out = cls.forward(ctx, *args, **kwargs)
        finally:
            _C._suspend_forward_ad(False)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        tensor_outs = [o if isinstance(o, _C.TensorBase) else None for o in outs]
        n_in = len(args)

        def backward(*grads):  # the engine passes zeros for unused outputs unless materialize is off
            res = cls.backward(ctx, *grads)
            res = res if isinstance(res, tuple) else (res,)
            while len(res) > n_in and res[-1] is None:  # extra Nones are allowed, as in PyTorch
                res = res[:-1]
            if len(res) != n_in:
                raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of gradients "
                                   f"(expected {n_in}, got {len(res)})")
            return tuple(g for g, a in zip(res, tensor_args) if a is not None)  # only tensor inputs have edges

        def release():
            ctx._released = True
            ctx._saved = ()

        recorded = _C._record_function(
            cls.__name__ + "Backward",
            backward,
            release,
            [a for a in tensor_args if a is not None],
            [o for o in tensor_outs if o is not None],
            list(getattr(ctx, "_dirty", ())),
            list(getattr(ctx, "_non_differentiable", ())),
            getattr(ctx, "_materialize", True),
        )
        it = iter(recorded)
        final = tuple(next(it) if o is not None else raw for o, raw in zip(tensor_outs, outs))
        if tangents is not None:
            _set_output_tangents(cls, ctx, tangents, final)
        return final[0] if single else final


def _tangents(tensor_args):
    """The inputs' forward-AD tangents (zeros for a tensor without one, None for non-tensors), or
    None when no input carries one."""
    if _C._current_dual_level() < 0:
        return None
    tangents = [None if a is None else _C._unpack_dual(a, 0)[1] for a in tensor_args]
    if all(t is None for t in tangents):
        return None
    return [t if t is not None or a is None else _C.zeros_like(a) for t, a in zip(tangents, tensor_args)]


def _set_output_tangents(cls, ctx, tangents, outputs):
    res = cls.jvp(ctx, *tangents)
    res = res if isinstance(res, tuple) else (res,)
    tensor_outs = [o for o in outputs if isinstance(o, _C.TensorBase)]
    if len(res) != len(outputs) and len(res) != len(tensor_outs):
        raise RuntimeError(f"function {cls.__name__}.jvp returned an incorrect number of tangents (expected "
                           f"{len(outputs)}, got {len(res)})")
    pairs = zip(outputs, res) if len(res) == len(outputs) else zip(tensor_outs, res)
    for o, t in pairs:
        if isinstance(o, _C.TensorBase) and t is not None and (o.is_floating_point() or o.is_complex()):
            _C._set_fw_tangent(o, t)


def once_differentiable(fn):
    """Marks a backward as not differentiable itself: it runs without recording."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper
