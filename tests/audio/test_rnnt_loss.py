"""functional.rnnt_loss / transforms.RNNTLoss against a plain NumPy RNN-T forward-backward written here (Graves
2012: alpha and beta over the time x target lattice, loss -log P(y|x), gradient with respect to the logits from
alpha, beta and the softmax), and gradcheck on the ember implementation."""
import numpy as np
import pytest

import ember
from emberaudio import functional as F
from emberaudio import transforms as T


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def reference(logits, target, blank):
    """One sequence: logits (T, U+1, V), target (U,) -> (loss, d loss / d logits)."""
    t_len, u1, _ = logits.shape
    lp = _log_softmax(logits)
    alpha = np.full((t_len, u1), -np.inf)
    alpha[0, 0] = 0.0
    for t in range(t_len):
        for u in range(u1):
            if t > 0:
                alpha[t, u] = np.logaddexp(alpha[t, u], alpha[t - 1, u] + lp[t - 1, u, blank])
            if u > 0:
                alpha[t, u] = np.logaddexp(alpha[t, u], alpha[t, u - 1] + lp[t, u - 1, target[u - 1]])
    beta = np.full((t_len, u1), -np.inf)
    beta[-1, -1] = lp[-1, -1, blank]
    for t in range(t_len - 1, -1, -1):
        for u in range(u1 - 1, -1, -1):
            if t < t_len - 1:
                beta[t, u] = np.logaddexp(beta[t, u], beta[t + 1, u] + lp[t, u, blank])
            if u < u1 - 1:
                beta[t, u] = np.logaddexp(beta[t, u], beta[t, u + 1] + lp[t, u, target[u]])
    log_like = beta[0, 0]
    assert np.isclose(log_like, alpha[-1, -1] + lp[-1, -1, blank])
    # d(-log P)/d lp[t,u,k] = -exp(alpha[t,u] + lp[t,u,k] + beta[next] - log P) for the two outgoing arcs
    grad_lp = np.zeros_like(lp)
    for t in range(t_len):
        for u in range(u1):
            after_blank = beta[t + 1, u] if t < t_len - 1 else (0.0 if u == u1 - 1 else -np.inf)
            grad_lp[t, u, blank] = -np.exp(alpha[t, u] + lp[t, u, blank] + after_blank - log_like)
            if u < u1 - 1:
                grad_lp[t, u, target[u]] = -np.exp(alpha[t, u] + lp[t, u, target[u]] + beta[t, u + 1] - log_like)
    # through the log-softmax: g_logit = g_lp - softmax * sum(g_lp)
    grad = grad_lp - np.exp(lp) * grad_lp.sum(-1, keepdims=True)
    return -log_like, grad


def _case(seed, lengths=((4, 3), (3, 1), (2, 0)), classes=5):
    rng = np.random.default_rng(seed)
    batch = len(lengths)
    max_t = max(t for t, _ in lengths)
    max_u = max(u for _, u in lengths)
    logits = rng.normal(size=(batch, max_t, max_u + 1, classes))
    targets = rng.integers(0, classes - 1, size=(batch, max_u)).astype(np.int32)  # the last class is the blank
    return logits, targets, np.array([t for t, _ in lengths], np.int32), np.array([u for _, u in lengths], np.int32)


def _tensors(logits, targets, tl, ul, dtype=ember.float64):
    return (ember.from_numpy(logits).to(dtype), ember.from_numpy(targets), ember.from_numpy(tl), ember.from_numpy(ul))


@pytest.mark.parametrize("seed", range(3))
def test_losses_and_gradients_match_numpy(seed):
    logits, targets, tl, ul = _case(seed)
    x, y, t_len, u_len = _tensors(logits, targets, tl, ul)
    x.requires_grad_(True)
    costs = F.rnnt_loss(x, y, t_len, u_len, reduction="none")
    costs.sum().backward()
    for b in range(len(tl)):
        loss, grad = reference(logits[b, : tl[b], : ul[b] + 1], targets[b, : ul[b]], blank=4)
        assert costs[b].item() == pytest.approx(loss, rel=1e-10)
        np.testing.assert_allclose(x.grad[b, : tl[b], : ul[b] + 1].numpy(), grad, rtol=1e-8, atol=1e-12)
        assert np.abs(x.grad[b].numpy()).sum() == pytest.approx(np.abs(grad).sum())  # nothing beyond the lengths


def test_reductions_blank_and_module():
    logits, targets, tl, ul = _case(5)
    x, y, t_len, u_len = _tensors(logits, targets, tl, ul)
    ref = [reference(logits[b, : tl[b], : ul[b] + 1], targets[b, : ul[b]], blank=4)[0] for b in range(3)]
    assert F.rnnt_loss(x, y, t_len, u_len).item() == pytest.approx(np.mean(ref))
    assert F.rnnt_loss(x, y, t_len, u_len, reduction="sum").item() == pytest.approx(np.sum(ref))
    assert T.RNNTLoss(blank=4, reduction="sum")(x, y, t_len, u_len).item() == pytest.approx(np.sum(ref))
    # blank 0: targets shifted up so they avoid it
    shifted = targets + 1
    y0 = ember.from_numpy(shifted)
    ref0 = [reference(logits[b, : tl[b], : ul[b] + 1], shifted[b, : ul[b]], blank=0)[0] for b in range(3)]
    np.testing.assert_allclose(F.rnnt_loss(x, y0, t_len, u_len, blank=0, reduction="none").numpy(), ref0, rtol=1e-10)
    # fused_log_softmax=False takes log-probabilities as they are
    lp = ember.from_numpy(_log_softmax(logits))
    np.testing.assert_allclose(F.rnnt_loss(lp, y, t_len, u_len, reduction="none", fused_log_softmax=False).numpy(),
                               ref, rtol=1e-10)


def test_clamp_clips_each_gradient():
    logits, targets, tl, ul = _case(7)
    logits = logits * 4
    x, y, t_len, u_len = _tensors(logits, targets, tl, ul)
    x.requires_grad_(True)
    F.rnnt_loss(x, y, t_len, u_len, clamp=0.05, reduction="sum").backward()
    for b in range(3):
        _, grad = reference(logits[b, : tl[b], : ul[b] + 1], targets[b, : ul[b]], blank=4)
        np.testing.assert_allclose(x.grad[b, : tl[b], : ul[b] + 1].numpy(), np.clip(grad, -0.05, 0.05), rtol=1e-8,
                                   atol=1e-12)


def test_gradcheck():
    logits, targets, tl, ul = _case(11, lengths=((3, 2), (2, 1)), classes=4)
    x, y, t_len, u_len = _tensors(logits, targets % 3, tl, ul)
    x.requires_grad_(True)
    assert ember.autograd.gradcheck(lambda z: F.rnnt_loss(z, y, t_len, u_len, reduction="none"), (x,))


def test_float32_agrees():
    logits, targets, tl, ul = _case(3, lengths=((30, 12), (25, 9)), classes=8)
    x, y, t_len, u_len = _tensors(logits, targets, tl, ul, dtype=ember.float32)
    ref = [reference(logits[b, : tl[b], : ul[b] + 1], targets[b, : ul[b]], blank=7)[0] for b in range(2)]
    np.testing.assert_allclose(F.rnnt_loss(x, y, t_len, u_len, reduction="none").numpy(), ref, rtol=1e-5)


def test_errors():
    logits, targets, tl, ul = _case(0)
    x, y, t_len, u_len = _tensors(logits, targets, tl, ul)
    with pytest.raises(RuntimeError, match="targets must be int32 type"):
        F.rnnt_loss(x, y.long(), t_len, u_len)
    with pytest.raises(RuntimeError, match="logit_lengths must be int32 type"):
        F.rnnt_loss(x, y, t_len.long(), u_len)
    with pytest.raises(RuntimeError, match="4-D"):
        F.rnnt_loss(x[0], y, t_len, u_len)
    with pytest.raises(RuntimeError, match="input length mismatch"):
        F.rnnt_loss(x[:, :3], y, t_len, u_len)
    with pytest.raises(RuntimeError, match="output length mismatch"):
        F.rnnt_loss(x[:, :, :3], y, t_len, u_len)
    with pytest.raises(RuntimeError, match="targets must lie"):
        F.rnnt_loss(x, y + 10, t_len, u_len)
    with pytest.raises(ValueError, match="reduction"):
        F.rnnt_loss(x, y, t_len, u_len, reduction="avg")
