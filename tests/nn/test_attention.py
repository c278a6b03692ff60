"""Attention and the Transformer layers against NumPy implementations of PyTorch's documented
formulas (dropout off), run with the modules' own parameters; gradcheck; masks; errors."""
import numpy as np
import pytest
from scipy import special

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

rng = np.random.default_rng(0)


def ref_sdpa(q, k, v, bias=None, scale=None):
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if bias is not None:
        s = s + bias
    return special.softmax(s, -1) @ v


def t(a):
    return ember.tensor(np.asarray(a, dtype=np.float64))


def test_sdpa_masks_causal_and_scale():
    q, k, v = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((2, 3, 6, 7))
    np.testing.assert_allclose(F.scaled_dot_product_attention(t(q), t(k), t(v)).numpy(), ref_sdpa(q, k, v), rtol=1e-10)
    keep = rng.random((4, 6)) > 0.3
    keep[:, 0] = True
    bias = np.where(keep, 0.0, -np.inf)
    got = F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=ember.tensor(keep))
    np.testing.assert_allclose(got.numpy(), ref_sdpa(q, k, v, bias), rtol=1e-10)
    fbias = rng.standard_normal((4, 6))
    got = F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(fbias), scale=0.5)
    np.testing.assert_allclose(got.numpy(), ref_sdpa(q, k, v, fbias, 0.5), rtol=1e-10)
    causal = np.where(np.tril(np.ones((4, 6), bool)), 0.0, -np.inf)
    got = F.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=True)
    np.testing.assert_allclose(got.numpy(), ref_sdpa(q, k, v, causal), rtol=1e-10)
    kg, vg = rng.standard_normal((2, 1, 6, 5)), rng.standard_normal((2, 1, 6, 7))
    got = F.scaled_dot_product_attention(t(q), t(kg), t(vg), enable_gqa=True)
    np.testing.assert_allclose(got.numpy(), ref_sdpa(q, np.repeat(kg, 3, 1), np.repeat(vg, 3, 1)), rtol=1e-10)
    with pytest.raises(RuntimeError, match="embedding size"):
        F.scaled_dot_product_attention(t(q), t(rng.standard_normal((2, 3, 6, 4))), t(v))


def test_sdpa_gradcheck():
    q, k, v = (ember.tensor(rng.standard_normal(s), requires_grad=True) for s in ((1, 2, 3), (1, 4, 3), (1, 4, 2)))
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=False), (q, k, v))


def ref_mha(m, q, k, v, key_padding=None, attn_mask=None):
    """q (L, N, E), k/v (S, N, E) -> output, head-averaged weights (N, L, S)."""
    P = {n: p.detach().numpy() for n, p in m.named_parameters()}
    E, H = m.embed_dim, m.num_heads
    W = P["in_proj_weight"]
    b = P.get("in_proj_bias", np.zeros(3 * E))
    qp, kp, vp = q @ W[:E].T + b[:E], k @ W[E:2 * E].T + b[E:2 * E], v @ W[2 * E:].T + b[2 * E:]
    L, N, _ = q.shape
    S = k.shape[0]
    hd = E // H
    split = lambda x, n: x.reshape(n, N, H, hd).transpose(1, 2, 0, 3)
    qh, kh, vh = split(qp, L), split(kp, S), split(vp, S)
    s = qh @ kh.transpose(0, 1, 3, 2) / np.sqrt(hd)
    if attn_mask is not None:
        s = s + np.where(attn_mask, -np.inf, 0.0)
    if key_padding is not None:
        s = s + np.where(key_padding, -np.inf, 0.0)[:, None, None, :]
    a = special.softmax(s, -1)
    out = (a @ vh).transpose(2, 0, 1, 3).reshape(L, N, E)
    out = out @ P["out_proj.weight"].T + P["out_proj.bias"]
    return out, a.mean(1)


@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention(batch_first):
    m = nn.MultiheadAttention(6, 3, batch_first=batch_first).double()
    q, k = rng.standard_normal((4, 2, 6)), rng.standard_normal((5, 2, 6))
    pad = np.array([[False] * 4 + [True], [False] * 5])
    mask = np.triu(np.ones((4, 5), bool), 2)
    args = [t(x.transpose(1, 0, 2) if batch_first else x) for x in (q, k, k)]
    out, w = m(*args, key_padding_mask=ember.tensor(pad), attn_mask=ember.tensor(mask))
    want_out, want_w = ref_mha(m, q, k, k, pad, mask)
    got = out.detach().numpy()
    np.testing.assert_allclose(got.transpose(1, 0, 2) if batch_first else got, want_out, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w.detach().numpy(), want_w, rtol=1e-9, atol=1e-12)
    x = ember.tensor(q[:, :1], requires_grad=True)
    assert gradcheck(lambda a: m(a, a, a)[0], (x.transpose(0, 1) if batch_first else x,))


def test_encoder_layer_post_and_pre_norm():
    for norm_first in (False, True):
        layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, norm_first=norm_first).double()
        x = rng.standard_normal((3, 2, 4))
        P = {n: p.detach().numpy() for n, p in layer.named_parameters()}

        def ln(z, name):
            mu, var = z.mean(-1, keepdims=True), z.var(-1, keepdims=True)
            return (z - mu) / np.sqrt(var + 1e-5) * P[name + ".weight"] + P[name + ".bias"]

        sa = lambda z: ref_mha(layer.self_attn, z, z, z)[0]
        ff = lambda z: np.maximum(z @ P["linear1.weight"].T + P["linear1.bias"], 0) @ P["linear2.weight"].T \
            + P["linear2.bias"]
        if norm_first:
            y = x + sa(ln(x, "norm1"))
            want = y + ff(ln(y, "norm2"))
        else:
            y = ln(x + sa(x), "norm1")
            want = ln(y + ff(y), "norm2")
        np.testing.assert_allclose(layer(t(x)).detach().numpy(), want, rtol=1e-9, atol=1e-12)


def test_transformer_shapes_mask_and_errors():
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(mask.numpy(), np.triu(np.full((3, 3), -np.inf), 1))
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16,
                           dropout=0.0, batch_first=True)
    out = model(ember.randn(2, 5, 8), ember.randn(2, 3, 8), tgt_mask=mask)
    assert tuple(out.shape) == (2, 3, 8)
    assert len(model.decoder.layers) == 2 and model.decoder.layers[0] is not model.decoder.layers[1]
    with pytest.raises(RuntimeError, match="must be equal to d_model"):
        model(ember.randn(2, 5, 6), ember.randn(2, 3, 8))
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)
