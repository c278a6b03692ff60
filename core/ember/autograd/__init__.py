"""ember.autograd: reverse-mode automatic differentiation (the engine is C++, core/csrc/autograd)."""
import contextlib as _contextlib
import threading as _threading

from .. import _C
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from .gradcheck import gradcheck, gradgradcheck
from .variable import Variable
from . import forward_ad, functional, profiler  # noqa: F401  (ember.autograd.profiler, as PyTorch)

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "gradcheck",
           "gradgradcheck", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "functional", "forward_ad",
           "Variable"]


def _tensors(x, what):
    if x is None:
        return []
    if isinstance(x, _C.TensorBase):
        return [x]
    x = list(x)
    for t in x:
        if t is not None and not isinstance(t, _C.TensorBase):
            raise TypeError(f"{what}: expected Tensors, got {type(t).__name__}")
    return x


def _grads(grad_tensors, n):
    if grad_tensors is None:
        return [None] * n
    g = _tensors(grad_tensors, "grad_tensors")
    if len(g) != n:
        raise RuntimeError(f"got {len(g)} gradients for {n} tensors")
    return g


# Per thread, one entry per running engine call: True when it was asked for chosen inputs only (grad(),
# backward(inputs=)). Reentrant checkpointing cannot honour those and reads this (_is_checkpoint_valid).
_engine_calls = _threading.local()


@_contextlib.contextmanager
def _engine_call(with_inputs):
    stack = _engine_calls.__dict__.setdefault("stack", [])
    stack.append(bool(with_inputs))
    try:
        yield
    finally:
        stack.pop()


def _is_checkpoint_valid():
    """False inside an engine call that computes the gradients of chosen inputs only."""
    stack = getattr(_engine_calls, "stack", None)
    return not stack or not stack[-1]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the gradients of tensors with respect to the graph's leaves and adds them into the
    leaves' .grad (or, with inputs=, into those tensors' .grad only)."""
    ts = _tensors(tensors, "tensors")
    if retain_graph is None:
        retain_graph = create_graph
    ins = _tensors(inputs, "inputs")
    if inputs is not None and not ins:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    with _engine_call(inputs is not None):
        res = _C._run_backward(ts, _grads(grad_tensors, len(ts)), bool(retain_graph), bool(create_graph), ins, True,
                               True)
    for t, g in zip(ins, res):  # non-leaf inputs: their gradient is kept in .grad
        if g is not None and not t.is_leaf:
            t.grad = g if t.grad is None else t.grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of outputs with respect to inputs, returned (not accumulated into .grad)."""
    outs = _tensors(outputs, "outputs")
    ins = _tensors(inputs, "inputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        gos = _grads(grad_outputs, len(outs))
        n = gos[0].shape[0]
        rows = [grad(outs, ins, [g[i] for g in gos], retain_graph=True, create_graph=create_graph,
                     allow_unused=allow_unused, materialize_grads=materialize_grads) for i in range(n)]
        from .. import stack
        return tuple(None if rows[0][j] is None else stack([r[j] for r in rows]) for j in range(len(ins)))
    with _engine_call(True):
        res = _C._run_backward(outs, _grads(grad_outputs, len(outs)), bool(retain_graph), bool(create_graph), ins,
                               bool(allow_unused), False)
    if materialize_grads:
        from .. import zeros_like
        res = tuple(zeros_like(i) if g is None else g for g, i in zip(res, ins))
    return tuple(res)
