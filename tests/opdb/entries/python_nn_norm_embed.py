"""OpInfos of ember.nn.functional's normalizations (batch/instance/layer/group/local response), embedding (with
max_norm), embedding_bag, pad (every mode, negative amounts) and attention (scaled_dot_product_attention,
multi_head_attention_forward) against NumPy references written here and in python_functional_conv_pool.py."""
import numpy as np
import scipy.special as sps

import ember
from ember.testing.opinfo import Sample, register

from ._nn_samples import noncontig, plain_grad_samples, r
from ._python_level import python_opinfo
from .python_embedding_bag import np_embedding_bag
from .python_functional_conv_pool import _channel, _normalize

LOW = ("bfloat16", "float32", "float64")


def _affine(y, w, b, ndim):
    return y * (1 if w is None else _channel(w, ndim)) + (0 if b is None else _channel(b, ndim))


def _batch_norm(x, mean, var, w=None, b=None, training=False, momentum=0.1, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    y = _normalize(x, axes, eps) if training else (x - _channel(mean, x.ndim)) / np.sqrt(_channel(var, x.ndim) + eps)
    return _affine(y, w, b, x.ndim)


def _instance_norm(x, mean=None, var=None, w=None, b=None, use_input_stats=True, momentum=0.1, eps=1e-5):
    y = _normalize(x, tuple(range(2, x.ndim)), eps) if use_input_stats else \
        (x - _channel(mean, x.ndim)) / np.sqrt(_channel(var, x.ndim) + eps)
    return _affine(y, w, b, x.ndim)


def _layer_norm(x, shape, w=None, b=None, eps=1e-5):
    y = _normalize(x, tuple(range(x.ndim - len(shape), x.ndim)), eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


def _group_norm(x, groups, w=None, b=None, eps=1e-5):
    y = _normalize(x.reshape((x.shape[0], groups, -1)), (2,), eps).reshape(x.shape)
    return _affine(y, w, b, x.ndim)


def _local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha/size * sum of x**2 over the size channels around each)**beta; the window is padded by
    size//2 channels before and (size-1)//2 after."""
    sq = np.pad(x * x, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (x.ndim - 2))
    window = sum(sq[:, i:i + x.shape[1]] for i in range(size))
    return x / (k + alpha / size * window) ** beta


def _stats(rng, c):
    return rng.uniform(-0.5, 0.5, c), rng.uniform(0.5, 2, c)


def _batch_norm_samples(dtype, rng):
    mean, var = _stats(rng, 3)
    w, b = r(rng, 3) + 1.5, r(rng, 3)
    return [Sample((r(rng, 4, 3, 2, 2), mean, var, w, b)), Sample((r(rng, 4, 3), mean, var)),
            Sample((r(rng, 5, 3, 4), None, None, w, b, True)), Sample((r(rng, 5, 3), mean, var, w, b, True, 0.1, 1e-3)),
            Sample((noncontig(r(rng, 4, 3), dtype), mean, var, w, b)),
            Sample((np.zeros((0, 3, 2)), mean, var, w, b))]


def _batch_norm_grad(rng):
    """The running statistics as tensors, not gradcheck inputs (they have no gradient); in training none."""
    mean, var = (ember.tensor(a) for a in _stats(rng, 3))
    return [((r(rng, 4, 3, 2), mean, var, r(rng, 3) + 1.5, r(rng, 3)), {}),
            ((r(rng, 4, 3, 2), None, None, r(rng, 3) + 1.5, r(rng, 3), True), {})]


def _instance_norm_samples(dtype, rng):
    mean, var = _stats(rng, 3)
    w, b = r(rng, 3) + 1.5, r(rng, 3)
    return [Sample((r(rng, 2, 3, 5),)), Sample((r(rng, 2, 3, 3, 3), None, None, w, b)),
            Sample((r(rng, 2, 3, 4), mean, var, w, b, False)),  # running statistics instead of the input's
            Sample((noncontig(r(rng, 2, 3, 4), dtype),), {"eps": 1e-3})]


def _layer_norm_samples(dtype, rng):
    return [Sample((r(rng, 2, 3, 4), (4,))), Sample((r(rng, 2, 3, 4), (3, 4), r(rng, 3, 4), r(rng, 3, 4))),
            Sample((r(rng, 5, 4), [4], r(rng, 4) + 1, None, 1e-3)), Sample((noncontig(r(rng, 3, 4, 5), dtype), (5,))),
            Sample((np.zeros((0, 4)), (4,), r(rng, 4), r(rng, 4)))]


def _group_norm_samples(dtype, rng):
    return [Sample((r(rng, 2, 4, 3), 2)), Sample((r(rng, 2, 6, 2, 2), 3, r(rng, 6), r(rng, 6))),
            Sample((r(rng, 3, 4), 4, r(rng, 4), None, 1e-3)), Sample((noncontig(r(rng, 2, 4, 5), dtype), 1))]


def _lrn_samples(dtype, rng):
    return [Sample((r(rng, 2, 5, 3), 3)), Sample((r(rng, 2, 6, 3, 2), 2, 1e-2, 0.5, 2.0)),
            Sample((r(rng, 1, 4, 3, 2, 2), 4, 0.1)), Sample((noncontig(r(rng, 2, 5, 4), dtype), 5))]


def _embedding(idx, w, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Rows looked up; with max_norm the looked-up rows whose norm exceeds it are first scaled to max_norm (in the
    weight itself, as PyTorch's embedding_renorm_)."""
    if max_norm is not None:
        w = w.copy()
        for row in np.unique(idx):
            norm = np.sum(np.abs(w[row]) ** norm_type) ** (1 / norm_type)
            if norm > max_norm:
                w[row] *= max_norm / (norm + 1e-7)
    return w[idx]


def _embedding_samples(dtype, rng):
    idx = ember.tensor(rng.integers(0, 6, (2, 4)))
    return [Sample((idx, r(rng, 6, 3))), Sample((ember.tensor([0, 5, 5, 2]), r(rng, 6, 3), 5)),
            Sample((idx, r(rng, 6, 3, scale=3), None, 1.0)), Sample((idx, r(rng, 6, 3, scale=3), None, 2.0, 1.0)),
            Sample((ember.tensor(3), r(rng, 6, 3))), Sample((ember.tensor(np.zeros((0, 2), np.int64)), r(rng, 6, 3))),
            Sample((idx, noncontig(r(rng, 6, 3), dtype)))]


def _embedding_bag(idx, w, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                   sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """nn.functional's form: 2-d input is one bag per row; only the output (np_embedding_bag gives all four)."""
    if idx.ndim == 2:
        offsets = np.arange(0, idx.size, idx.shape[1])
        idx = idx.reshape(-1)
        per_sample_weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
    code = {"sum": 0, "mean": 1, "max": 2}[mode]
    return np_embedding_bag(w, idx, offsets, False, code, False, per_sample_weights, include_last_offset,
                            padding_idx)[0]


def _embedding_bag_samples(dtype, rng):
    idx, offsets = ember.tensor([1, 2, 4, 5, 4, 3, 2, 9]), ember.tensor([0, 3, 3, 6])
    out = [Sample((idx, r(rng, 10, 3), offsets), {"mode": mode}) for mode in ("sum", "mean", "max")]
    return out + [Sample((ember.tensor(rng.integers(0, 10, (3, 4))), r(rng, 10, 3)), {"mode": "max"}),
                  Sample((ember.tensor(rng.integers(0, 10, (3, 4))), r(rng, 10, 3))),
                  Sample((idx, r(rng, 10, 3), ember.tensor([0, 2, 5, 8])), {"include_last_offset": True}),
                  Sample((idx, r(rng, 10, 3), offsets), {"padding_idx": 4, "mode": "sum"}),
                  Sample((idx, r(rng, 10, 3), offsets, None, 2, False, "sum", False, rng.uniform(0.5, 2, 8))),
                  Sample((idx, noncontig(r(rng, 10, 3), dtype), offsets))]


def _pad(x, pad, mode="constant", value=None):
    pairs = [(0, 0)] * (x.ndim - len(pad) // 2) + [(pad[i], pad[i + 1]) for i in range(len(pad) - 2, -1, -2)]
    grown = [(max(a, 0), max(b, 0)) for a, b in pairs]
    if mode == "constant":
        out = np.pad(x, grown, constant_values=0.0 if value is None else value)
    else:
        out = np.pad(x, grown, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode])
    crop = tuple(slice(max(-a, 0), n - max(-b, 0)) for (a, b), n in zip(pairs, out.shape))  # negative amounts crop
    return out[crop]


def _pad_samples(dtype, rng):
    return [Sample((r(rng, 3, 4), (1, 2)), {"value": 2.5}), Sample((r(rng, 2, 3, 4), (-1, 2, 1, -1))),
            Sample((r(rng, 2, 3, 4), (0, 0, 0, 0, 1, 1))), Sample((r(rng, 2, 3, 5), (2, 1), "reflect")),
            Sample((r(rng, 1, 2, 4, 5), (1, 2, 2, 1), "reflect")),
            Sample((r(rng, 1, 2, 4, 5), (1, 2, 2, 1), "replicate")), Sample((r(rng, 2, 3, 4), (3, 0), "replicate")),
            Sample((r(rng, 1, 2, 3, 4, 4), (1, 1, 2, 0, 1, 2), "circular")),
            Sample((r(rng, 1, 2, 3, 4, 4), (1, 1, 2, 0, 1, 2), "reflect")),
            Sample((r(rng, 2, 2, 5), (2, 3), "circular")),
            Sample((np.zeros((0, 3)), (1, 1))), Sample((noncontig(r(rng, 2, 4, 5), dtype), (1, 1, 2, 0), "reflect"))]


def _sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    if enable_gqa:
        k, v = (np.repeat(t, q.shape[-3] // t.shape[-3], -3) for t in (k, v))
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if is_causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    if attn_mask is not None:
        s = np.where(attn_mask, s, -np.inf) if attn_mask.dtype == np.bool_ else s + attn_mask
    return sps.softmax(s, -1) @ v


def _sdpa_samples(dtype, rng):
    keep = ember.tensor(np.tril(np.ones((4, 5), bool), 1))  # every row keeps some key
    return [Sample((r(rng, 2, 3, 4, 8), r(rng, 2, 3, 5, 8), r(rng, 2, 3, 5, 6))),
            Sample((r(rng, 3, 4, 8), r(rng, 3, 5, 8), r(rng, 3, 5, 8)), {"scale": 0.3}),
            Sample((r(rng, 2, 1, 4, 8), r(rng, 2, 1, 4, 8), r(rng, 2, 1, 4, 8)), {"is_causal": True}),
            Sample((r(rng, 2, 4, 8), r(rng, 2, 5, 8), r(rng, 2, 5, 8), keep)),
            Sample((r(rng, 2, 4, 8), r(rng, 2, 5, 8), r(rng, 2, 5, 8), r(rng, 4, 5))),  # added float mask
            Sample((r(rng, 1, 4, 3, 8), r(rng, 1, 2, 3, 8), r(rng, 1, 2, 3, 8)), {"enable_gqa": True}),
            Sample((noncontig(r(rng, 2, 8, 4), dtype).transpose(-1, -2), r(rng, 2, 5, 8), r(rng, 2, 5, 8))),
            Sample((np.zeros((0, 4, 8)), np.zeros((0, 5, 8)), np.zeros((0, 5, 8))))]


def _mha(q, k, v, e, heads, in_w, in_b, bias_k, bias_v, add_zero_attn, dropout_p, out_w, out_b, training=True,
         key_padding_mask=None, need_weights=True, attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None,
         k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
         is_causal=False):
    """Sequence-first (L, N, E) or unbatched (L, E); bool masks mark what is left out, float masks are added."""
    # keyword arguments reach the reference as they are (tensors), positional ones as arrays
    attn_mask, key_padding_mask = (None if m is None else m.numpy() for m in (attn_mask, key_padding_mask))
    unbatched = q.ndim == 2
    if unbatched:
        q, k, v = q[:, None], k[:, None], v[:, None]
        key_padding_mask = None if key_padding_mask is None else key_padding_mask[None]
    wq, wk, wv = np.split(in_w, 3)
    bq, bk, bv = np.split(in_b, 3)
    hd = e // heads

    def heads_first(x):  # (L, N, E) -> (N, H, L, hd)
        return x.reshape(x.shape[0], x.shape[1], heads, hd).transpose(1, 2, 0, 3)
    qh, kh, vh = heads_first(q @ wq.T + bq), heads_first(k @ wk.T + bk), heads_first(v @ wv.T + bv)
    s = qh @ np.swapaxes(kh, -1, -2) / np.sqrt(hd)
    if attn_mask is not None:
        s = np.where(attn_mask, -np.inf, s) if attn_mask.dtype == np.bool_ else s + attn_mask
    if key_padding_mask is not None:
        s = np.where(key_padding_mask[:, None, None, :], -np.inf, s)
    w = sps.softmax(s, -1)
    out = (w @ vh).transpose(2, 0, 1, 3).reshape(q.shape[0], q.shape[1], e) @ out_w.T + out_b
    w = w.mean(1) if average_attn_weights else w
    return (out[:, 0], w[0]) if unbatched else (out, w)


def _mha_samples(dtype, rng):
    e, h = 6, 2

    def params():
        return (e, h, r(rng, 3 * e, e), r(rng, 3 * e), None, None, False, 0.0, r(rng, e, e), r(rng, e))
    causal = ember.tensor(np.triu(np.ones((4, 5), bool), 2))
    padding = ember.tensor(np.array([[False] * 4 + [True], [False] * 5]))
    return [Sample((r(rng, 4, 2, e), r(rng, 5, 2, e), r(rng, 5, 2, e)) + params()),
            Sample((r(rng, 4, 2, e), r(rng, 5, 2, e), r(rng, 5, 2, e)) + params(), {"attn_mask": causal}),
            Sample((r(rng, 4, 2, e), r(rng, 5, 2, e), r(rng, 5, 2, e)) + params(),
                   {"key_padding_mask": padding, "average_attn_weights": False}),
            Sample((r(rng, 4, e), r(rng, 5, e), r(rng, 5, e)) + params()),
            Sample((r(rng, 4, 2, e), r(rng, 5, 2, e), r(rng, 5, 2, e)) + params()[:-2] + (
                noncontig(r(rng, e, e), dtype), r(rng, e)))]


def _norm(name, ref, samples, dtypes=("float32", "float64"), **kw):
    return python_opinfo(f"nn.functional.{name}", ref, samples, dtypes,
                         grad_samples=kw.pop("grad_samples", plain_grad_samples(samples)), **kw)


register(
    _norm("batch_norm", _batch_norm, _batch_norm_samples, LOW, grad_samples=_batch_norm_grad),
    _norm("instance_norm", _instance_norm, _instance_norm_samples, grad_samples=lambda rng: [
        ((r(rng, 2, 3, 5),), {}), ((r(rng, 2, 3, 2, 2), None, None, r(rng, 3) + 1.5, r(rng, 3)), {})]),
    _norm("layer_norm", _layer_norm, _layer_norm_samples, LOW),
    _norm("group_norm", _group_norm, _group_norm_samples, LOW),
    _norm("local_response_norm", _local_response_norm, _lrn_samples),
    _norm("embedding", _embedding, _embedding_samples, LOW, grad_samples=lambda rng: [  # no max_norm, no padding row
        ((ember.tensor(rng.integers(0, 6, (2, 4))), r(rng, 6, 3)), {})]),
    _norm("embedding_bag", _embedding_bag, _embedding_bag_samples),
    _norm("pad", _pad, _pad_samples, LOW),
    _norm("scaled_dot_product_attention", _sdpa, _sdpa_samples, LOW, tol={"bfloat16": (3e-2, 3e-2)}),
    _norm("multi_head_attention_forward", _mha, _mha_samples, tol={"float32": (1e-5, 1e-5)}),
)
