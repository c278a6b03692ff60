"""Scripted functional.rnnt_loss / transforms.RNNTLoss: the same input checks as eager (error type and message),
gradient clamping (clamp > 0) in scripted code too, and scripted costs and gradients equal to eager ones and to the
NumPy forward-backward of test_rnnt_loss.py."""
import os
import sys

import numpy as np
import pytest

import ember
import ember.jit
from emberaudio import functional as F
from emberaudio import transforms as T

sys.path.insert(0, os.path.dirname(__file__))
from test_rnnt_loss import _case, _tensors, reference  # noqa: E402


def _scripted_function():
    return ember.jit.script(F.rnnt_loss)


def _inputs(seed=0, scale=1.0):
    logits, targets, tl, ul = _case(seed)
    return _tensors(logits * scale, targets, tl, ul), (logits * scale, targets, tl, ul)


def _bad_inputs():
    (x, y, t_len, u_len), _ = _inputs()
    return {
        "logits int": ((x.long(), y, t_len, u_len), {}),
        "targets int64": ((x, y.long(), t_len, u_len), {}),
        "logit_lengths int64": ((x, y, t_len.long(), u_len), {}),
        "target_lengths float": ((x, y, t_len, u_len.float()), {}),
        "logits 3-D": ((x[0], y, t_len, u_len), {}),
        "targets 1-D": ((x, y[0], t_len, u_len), {}),
        "lengths 2-D": ((x, y, t_len[None], u_len), {}),
        "batch": ((x[:2], y, t_len, u_len), {}),
        "time": ((x[:, :3], y, t_len, u_len), {}),
        "target+1": ((x[:, :, :3], y, t_len, u_len), {}),
        "targets width": ((x, y[:, :2], t_len, u_len), {}),
        "blank high": ((x, y, t_len, u_len), {"blank": 5}),
        "blank low": ((x, y, t_len, u_len), {"blank": -6}),
        "targets range": ((x, y + 10, t_len, u_len), {}),
        "negative targets": ((x, y - 10, t_len, u_len), {}),
        "zero length": ((x[:, :3], y, ember.tensor([3, 0, 2], dtype=ember.int32), u_len), {}),
        "reduction": ((x, y, t_len, u_len), {"reduction": "avg"}),
    }


def _raised(fn, args, kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("case", sorted(_bad_inputs()))
def test_scripted_checks_inputs_as_eager(case):
    args, kwargs = _bad_inputs()[case]
    eager_type, eager_message = _raised(F.rnnt_loss, args, kwargs)
    assert eager_type in (RuntimeError, ValueError) and eager_message
    assert _raised(_scripted_function(), args, kwargs) == (eager_type, eager_message)
    if "reduction" not in kwargs:
        module = T.RNNTLoss(blank=kwargs.get("blank", -1))
        assert _raised(ember.jit.script(module), args, {}) == (eager_type, eager_message)


def test_eager_messages_name_the_problem():
    bad = _bad_inputs()
    want = {"logits int": "logits must be float32 or float64 type", "targets int64": "targets must be int32 type",
            "logit_lengths int64": "logit_lengths must be int32 type",
            "target_lengths float": "target_lengths must be int32 type", "logits 3-D": "logits must be 4-D",
            "targets 1-D": "targets must be 2-D", "lengths 2-D": "must be 1-D", "batch": "batch dimension mismatch",
            "time": "input length mismatch", "target+1": "output length mismatch",
            "targets width": "target length mismatch", "blank high": r"blank must be within \[0, 5\), got 5",
            "blank low": r"blank must be within \[0, 5\), got -1", "targets range": r"targets must lie in \[0, 5\)",
            "zero length": "logit_lengths must be positive", "reduction": "reduction must be 'none', 'mean' or 'sum'"}
    for case, pattern in want.items():
        args, kwargs = bad[case]
        with pytest.raises((RuntimeError, ValueError), match=pattern):
            F.rnnt_loss(*args, **kwargs)


def _costs_and_grad(fn, x, *rest, **kwargs):
    x = x.detach().requires_grad_(True)
    costs = fn(x, *rest, **kwargs)
    weights = ember.tensor([1.0, -2.0, 0.5], dtype=x.dtype)  # unequal upstream gradients per sequence
    (costs * weights).sum().backward()
    return costs.detach(), x.grad


@pytest.mark.parametrize("clamp", [-1.0, 0.05, 0.3])
def test_scripted_clamp_equals_eager_and_reference(clamp):
    (x, y, t_len, u_len), (logits, targets, tl, ul) = _inputs(seed=7, scale=4.0)
    eager = _costs_and_grad(F.rnnt_loss, x, y, t_len, u_len, clamp=clamp, reduction="none")
    scripted = _costs_and_grad(_scripted_function(), x, y, t_len, u_len, clamp=clamp, reduction="none")
    assert ember.equal(scripted[0], eager[0]) and ember.equal(scripted[1], eager[1])
    for b, weight in enumerate([1.0, -2.0, 0.5]):
        loss, grad = reference(logits[b, : tl[b], : ul[b] + 1], targets[b, : ul[b]], blank=4)
        if clamp > 0:
            grad = np.clip(grad, -clamp, clamp)
        assert eager[0][b].item() == pytest.approx(loss, rel=1e-10)
        np.testing.assert_allclose(eager[1][b, : tl[b], : ul[b] + 1].numpy(), weight * grad, rtol=1e-8, atol=1e-12)
        assert float(eager[1][b].abs().sum()) == pytest.approx(abs(weight) * np.abs(grad).sum())
    if clamp > 0:
        assert float(eager[1].abs().max()) == pytest.approx(2.0 * clamp)  # some gradients were clipped


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_scripted_module_with_clamp_equals_eager(reduction):
    (x, y, t_len, u_len), _ = _inputs(seed=2, scale=3.0)
    module = T.RNNTLoss(blank=4, clamp=0.1, reduction=reduction)
    scripted = ember.jit.script(module)
    for dtype in (ember.float64, ember.float32):
        xs = x.to(dtype)
        e_out, s_out = module(xs, y, t_len, u_len), scripted(xs, y, t_len, u_len)
        assert e_out.dtype == dtype and ember.equal(s_out, e_out)
        e_grad = ember.autograd.grad(module(xs.requires_grad_(True), y, t_len, u_len).sum(), xs)[0]
        s_grad = ember.autograd.grad(scripted(xs, y, t_len, u_len).sum(), xs)[0]
        assert ember.equal(s_grad, e_grad) and float(e_grad.abs().max()) <= float(ember.tensor(0.1, dtype=dtype))
