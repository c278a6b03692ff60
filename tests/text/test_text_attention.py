"""embertext.nn attention containers against multi-head attention written in NumPy."""

import numpy as np
import pytest

import ember
from ember import nn
from embertext.nn import InProjContainer, MultiheadAttentionContainer, ScaledDotProduct


def numpy_mha(q, k, v, wq, wk, wv, wo, bo, nhead, mask=None):
    L, N, E = q.shape
    S = k.shape[0]
    d = E // nhead

    def heads(x, w, length):
        return (x @ w.T).reshape(length, N * nhead, d).transpose(1, 0, 2)

    qh, kh, vh = heads(q, wq, L) * d**-0.5, heads(k, wk, S), heads(v, wv, S)
    scores = qh @ kh.transpose(0, 2, 1)
    if mask is not None:
        scores = np.where(mask, -1e8, scores)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    out = (weights @ vh).transpose(1, 0, 2).reshape(L, N, E)
    return out @ wo.T + bo, weights


@pytest.mark.parametrize("batch_first", [False, True])
def test_container_equals_numpy(batch_first):
    ember.manual_seed(0)
    L, S, N, E, H = 3, 5, 2, 8, 2
    proj = InProjContainer(nn.Linear(E, E, bias=False), nn.Linear(E, E, bias=False), nn.Linear(E, E, bias=False))
    mha = MultiheadAttentionContainer(H, proj, ScaledDotProduct(), nn.Linear(E, E), batch_first=batch_first)
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in [(L, N, E), (S, N, E), (S, N, E)])
    mask = rng.random((N * H, L, S)) < 0.3
    args = [ember.tensor(x.transpose(1, 0, 2) if batch_first else x) for x in (q, k, v)]
    out, weights = mha(*args, attn_mask=ember.tensor(mask))
    out = out.detach().numpy()
    if batch_first:
        out = out.transpose(1, 0, 2)
    w = lambda m: m.weight.detach().numpy()  # noqa: E731
    ref_out, ref_w = numpy_mha(
        q,
        k,
        v,
        w(proj.query_proj),
        w(proj.key_proj),
        w(proj.value_proj),
        w(mha.out_proj),
        mha.out_proj.bias.detach().numpy(),
        H,
        mask,
    )
    np.testing.assert_allclose(out, ref_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(weights.detach().numpy(), ref_w, rtol=1e-4, atol=1e-6)


def test_bias_k_v_and_errors():
    sdp = ScaledDotProduct()
    q, k = ember.randn(2, 4, 3), ember.randn(5, 4, 3)
    bias = ember.randn(1, 4, 3)
    out, w = sdp(q, k, k, attn_mask=ember.zeros(4, 2, 5, dtype=ember.bool), bias_k=bias, bias_v=bias)
    assert out.shape == (2, 4, 3) and w.shape == (4, 2, 6)
    with pytest.raises(RuntimeError, match="3D"):
        sdp(q, k, k, attn_mask=ember.zeros(2, 5, dtype=ember.bool))
    with pytest.raises(RuntimeError, match="bool"):
        sdp(q, k, k, attn_mask=ember.zeros(1, 2, 5))
    with pytest.raises(ValueError, match="bias_k"):
        sdp(q, k, k, bias_k=ember.randn(2, 4, 3), bias_v=bias)
    proj = InProjContainer(nn.Identity(), nn.Identity(), nn.Identity())
    with pytest.raises(ValueError, match="divisible"):
        MultiheadAttentionContainer(5, proj, sdp, nn.Identity())(q, k, k)
