"""Wav2Vec2Model's forward, lengths masking and extract_features against a NumPy implementation of wav2vec 2.0
(fairseq's equations) written here, on small configurations of both layer orders and extractor modes."""
import math

import numpy as np
import pytest

import ember
from emberaudio import models

_erf = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def conv1d(x, w, b, stride=1, pad=0, groups=1):
    """x (C_in, L), w (C_out, C_in / groups, K)."""
    x = np.pad(x, ((0, 0), (pad, pad)))
    c_out, c_in_g, k = w.shape
    frames = (x.shape[1] - k) // stride + 1
    out = np.zeros((c_out, frames))
    per_group = c_out // groups
    for o in range(c_out):
        g = o // per_group
        xs = x[g * c_in_g:(g + 1) * c_in_g]
        for f in range(frames):
            out[o, f] = (xs[:, f * stride:f * stride + k] * w[o]).sum()
    return out + (b[:, None] if b is not None else 0)


def layer_norm(x, w, b, eps=1e-5):  # over the last axis
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def reference(p, cfg, wave, length=None):
    """One waveform (time,) -> (per-layer outputs, final output, valid frames)."""
    x = wave[None, :]
    for i, (c, k, s) in enumerate(cfg["conv"]):
        x = conv1d(x, p[f"feature_extractor.conv_layers.{i}.conv.weight"],
                   p.get(f"feature_extractor.conv_layers.{i}.conv.bias"), stride=s)
        key = f"feature_extractor.conv_layers.{i}.layer_norm"
        if cfg["mode"] == "group_norm" and i == 0:  # one group per channel: normalise each channel over time
            x = layer_norm(x, 1.0, 0.0) * p[key + ".weight"][:, None] + p[key + ".bias"][:, None]
        elif cfg["mode"] == "layer_norm":
            x = layer_norm(x.T, p[key + ".weight"], p[key + ".bias"]).T
        x = gelu(x)
        if length is not None:
            length = max((length - k) // s + 1, 0)
    x = x.T  # (frames, channels)
    fp = "encoder.feature_projection"
    x = layer_norm(x, p[f"{fp}.layer_norm.weight"], p[f"{fp}.layer_norm.bias"])
    x = x @ p["encoder.feature_projection.projection.weight"].T + p["encoder.feature_projection.projection.bias"]
    frames = x.shape[0]
    bias = np.zeros(frames)
    if length is not None:
        x[length:] = 0
        bias[length:] = -10000.0
    pc = "encoder.transformer.pos_conv_embed.conv"
    v, g = p[pc + ".weight_v"], p[pc + ".weight_g"]
    w = g * v / np.sqrt((v**2).sum(axis=(0, 1), keepdims=True))  # weight norm over the kernel axis (dim=2)
    k = cfg["pos_kernel"]
    pos = conv1d(x.T, w, p[pc + ".bias"], pad=k // 2, groups=cfg["pos_groups"])
    if k % 2 == 0:
        pos = pos[:, :-1]
    x = x + gelu(pos).T
    first = cfg["norm_first"]
    tl = "encoder.transformer.layer_norm"
    if not first:
        x = layer_norm(x, p[tl + ".weight"], p[tl + ".bias"])
    outs = []
    heads, dim = cfg["heads"], x.shape[1]
    hd = dim // heads
    for n in range(cfg["layers"]):
        L = f"encoder.transformer.layers.{n}."

        def lin(name, h, L=L):
            return h @ p[L + name + ".weight"].T + p[L + name + ".bias"]

        def attention(h):
            q, kk, vv = (lin(f"attention.{m}_proj", h).reshape(frames, heads, hd).transpose(1, 0, 2)
                         for m in "qkv")
            a = softmax(q @ kk.transpose(0, 2, 1) / math.sqrt(hd) + bias)
            return lin("attention.out_proj", (a @ vv).transpose(1, 0, 2).reshape(frames, dim))

        def ff(h):
            return lin("feed_forward.output_dense", gelu(lin("feed_forward.intermediate_dense", h)))

        ln1 = (p[L + "layer_norm.weight"], p[L + "layer_norm.bias"])
        ln2 = (p[L + "final_layer_norm.weight"], p[L + "final_layer_norm.bias"])
        if first:
            x = x + attention(layer_norm(x, *ln1))
            x = x + ff(layer_norm(x, *ln2))
        else:
            x = layer_norm(x + attention(x), *ln1)
            x = layer_norm(x + ff(x), *ln2)
        outs.append(x)
    final = layer_norm(x, p[tl + ".weight"], p[tl + ".bias"]) if first else x
    if "aux.weight" in p:
        final = final @ p["aux.weight"].T + p["aux.bias"]
    return outs, final, length


CONFIGS = {
    "post_norm_group": dict(mode="group_norm", bias=False, norm_first=False, pos_kernel=4, pos_groups=2),
    "pre_norm_layer": dict(mode="layer_norm", bias=True, norm_first=True, pos_kernel=5, pos_groups=3),
}


def _build(name, aux=None):
    c = dict(CONFIGS[name], conv=[(8, 10, 5), (6, 3, 2)], heads=3, layers=2)
    model = models.wav2vec2_model(c["mode"], c["conv"], c["bias"], 12, 0.1, c["pos_kernel"], c["pos_groups"],
                                  c["layers"], c["heads"], 0.1, 16, 0.1, 0.1, c["norm_first"], 0.1, aux_num_out=aux)
    ember.manual_seed(3)
    with ember.no_grad():  # non-trivial norms and biases so every parameter matters
        for key, t in model.state_dict().items():
            if key.endswith("bias") or "norm" in key or key.endswith("weight_g"):
                t.copy_(ember.rand(t.shape, dtype=t.dtype) + 0.5 if not key.endswith("bias") else ember.randn(t.shape))
    params = {k: v.numpy().astype(np.float64) for k, v in model.state_dict().items()}
    return model.eval(), params, c


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_forward_matches_numpy(name):
    model, params, cfg = _build(name, aux=5)
    ember.manual_seed(0)
    waves = ember.randn(2, 400)
    out, lengths = model(waves)
    assert lengths is None and tuple(out.shape) == (2, 39, 5)
    for b in range(2):
        _, ref, _ = reference(params, cfg, waves[b].numpy().astype(np.float64))
        np.testing.assert_allclose(out[b].detach().numpy(), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_lengths_mask_padded_frames(name):
    model, params, cfg = _build(name)
    waves = ember.randn(2, 400)
    out, lengths = model(waves, ember.tensor([400, 250]))
    # (400 - 10) // 5 + 1 = 79 -> (79 - 3) // 2 + 1 = 39; (250 - 10) // 5 + 1 = 49 -> 24
    assert lengths.tolist() == [39, 24]
    _, ref, n = reference(params, cfg, waves[1].numpy().astype(np.float64), length=250)
    assert n == 24
    np.testing.assert_allclose(out[1, :24].detach().numpy(), ref[:24], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_extract_features_returns_each_layer(name):
    model, params, cfg = _build(name, aux=5)
    wave = ember.randn(1, 300)
    feats, _ = model.extract_features(wave)
    outs, _, _ = reference(params, cfg, wave[0].numpy().astype(np.float64))
    assert len(feats) == 2
    for f, r in zip(feats, outs):
        np.testing.assert_allclose(f[0].detach().numpy(), r, rtol=1e-4, atol=1e-4)
    one, _ = model.extract_features(wave, num_layers=1)
    assert len(one) == 1
    with pytest.raises(ValueError, match="num_layers"):
        model.extract_features(wave, num_layers=3)


def test_bad_input_shapes_raise():
    model, _, _ = _build("post_norm_group")
    with pytest.raises(ValueError, match="2D"):
        model(ember.randn(1, 1, 400))
    with pytest.raises(ValueError, match="not divisible"):
        models.wav2vec2_model("group_norm", None, False, 10, 0.0, 4, 2, 1, 3, 0.0, 8, 0.0, 0.0, False, 0.0)
    with pytest.raises(ValueError, match="extractor_mode"):
        models.wav2vec2_model("batch_norm", None, False, 12, 0.0, 4, 2, 1, 3, 0.0, 8, 0.0, 0.0, False, 0.0)
