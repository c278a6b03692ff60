"""scaled_dot_product_attention and multi_head_attention_forward of ember.nn.functional
(re-exported there), written with differentiable ops."""
from __future__ import annotations

import math

from ..amp._policy import autocast_policy
from .. import _C
from ._arg_checks import check_positive, tensor_args
from ._functional_dropout import dropout
from ._functional_linear import linear

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _mask_bias(mask, dtype):
    """A boolean mask (True: attend) as an additive bias (-inf where not); a float mask as is."""
    if mask is None:
        return None
    if mask.dtype == _C.bool:
        return _C.zeros(list(mask.shape), dtype=dtype).masked_fill(mask.logical_not(), float("-inf"))
    return mask.to(dtype)


def _repeat_heads(t, heads):
    """(..., Hk, S, E) -> (..., heads, S, E), each of the Hk heads repeated for heads // Hk queries."""
    hk = t.shape[-3]
    if heads % hk:
        raise RuntimeError(f"enable_gqa: the query's {heads} heads are not a multiple of the key's {hk}")
    shape = list(t.shape)
    expanded = t.unsqueeze(-3).expand(*shape[:-2], heads // hk, *shape[-2:])
    return expanded.reshape(shape[:-3] + [heads] + shape[-2:])


@tensor_args("query", "key", "value", optional=("attn_mask",), numbers=("dropout_p",))
@autocast_policy("lower_precision_fp")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v over the last two dims, batch dims broadcast."""
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must have at least 2 dims")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: query's embedding size {query.shape[-1]} differs from "
                           f"key's {key.shape[-1]}")
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: key has {key.shape[-2]} positions, value "
                           f"{value.shape[-2]}")
    if attn_mask is not None and attn_mask.dtype != _C.bool and attn_mask.dtype != query.dtype:
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {attn_mask.dtype} and query.dtype: {query.dtype} instead.")
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        key, value = _repeat_heads(key, query.shape[-3]), _repeat_heads(value, query.shape[-3])
    L, S = query.shape[-2], key.shape[-2]
    scores = _C.matmul(query, key.transpose(-2, -1))
    if query.shape[-1]:  # with no embedding the scores are empty sums, 0: PyTorch scales the empty query and key
        scores = scores * (1.0 / math.sqrt(query.shape[-1]) if scale is None else scale)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("scaled_dot_product_attention: give attn_mask or is_causal, not both")
        causal = _C.ones(L, S, dtype=_C.bool).tril()
        scores = scores + _mask_bias(causal, scores.dtype)
    elif attn_mask is not None:
        scores = scores + _mask_bias(attn_mask, scores.dtype)
    if attn_mask is not None:
        # a row that may attend nowhere gives zeros, not NaN (PyTorch's safe softmax); its scores are
        # replaced before the softmax so that no NaN reaches the backward pass either
        nowhere = (scores == float("-inf")).all(-1, keepdim=True)
        attn = _C.softmax(_C.where(nowhere, _C.zeros((), dtype=scores.dtype), scores), -1)
        attn = attn.masked_fill(nowhere, 0.0)
    else:
        attn = _C.softmax(scores, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return _C.matmul(attn, value)


@tensor_args("query", "key", "value", "out_proj_weight",
             optional=("in_proj_weight", "in_proj_bias", "out_proj_bias", "bias_k", "bias_v", "key_padding_mask",
                       "attn_mask", "q_proj_weight", "k_proj_weight", "v_proj_weight", "static_k", "static_v"),
             numbers=("dropout_p",))
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """nn.MultiheadAttention's computation on (L, N, E) query and (S, N, E) key/value (or
    unbatched (L, E)), with PyTorch's signature: returns the output and, when asked, the
    attention weights. static_k/static_v, (N * num_heads, S, E / num_heads), replace the
    projected keys/values."""
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    unbatched = query.dim() == 2
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    if query.dim() != 3:
        raise RuntimeError(f"multi_head_attention_forward: query should be unbatched 2D or batched 3D tensor but "
                           f"received {query.dim()}-D query tensor")
    L, N, E = query.shape
    if E != embed_dim_to_check:  # PyTorch's assertions, with its type
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    check_positive("multi_head_attention_forward", "num_heads", num_heads)
    if E % num_heads:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        for name, w in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                        ("v_proj_weight", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name} is None")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3, 0)
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v must both be given or both be None")
    if bias_k is not None and (static_k is not None or static_v is not None):
        raise AssertionError("bias cannot be added to static key or value.")
    for name, t in (("bias_k", bias_k), ("bias_v", bias_v)):
        if t is not None and (t.numel() != E or t.dim() > 3):
            raise RuntimeError(f"multi_head_attention_forward(): {name} must be of shape (1, 1, {E}), got "
                               f"{list(t.shape)}")
    hd = E // num_heads
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3, 0)
    q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)
    if bias_k is not None:
        k = _C.cat([k, bias_k.reshape(1, 1, E).expand(1, N, E)])
        v = _C.cat([v, bias_v.reshape(1, 1, E).expand(1, N, E)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    # (L, N, E) -> (N, heads, L, hd)
    q = q.reshape(L, N, num_heads, hd).permute(1, 2, 0, 3)
    k = k.reshape(k.shape[0], N, num_heads, hd).permute(1, 2, 0, 3)
    v = v.reshape(v.shape[0], N, num_heads, hd).permute(1, 2, 0, 3)
    for name, static in (("static_k", static_k), ("static_v", static_v)):
        if static is not None and (static.dim() != 3 or static.shape[0] != N * num_heads or static.shape[2] != hd):
            raise AssertionError(f"expecting {name} of shape ({N * num_heads}, S, {hd}), but got {list(static.shape)}")
    if static_k is not None:
        k = static_k.reshape(N, num_heads, static_k.shape[1], hd)
    if static_v is not None:
        v = static_v.reshape(N, num_heads, static_v.shape[1], hd)
    if add_zero_attn:
        k = _C.cat([k, _C.zeros(N, num_heads, 1, hd, dtype=k.dtype)], 2)
        v = _C.cat([v, _C.zeros(N, num_heads, 1, hd, dtype=v.dtype)], 2)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    S = k.shape[2]
    scores = _C.matmul(q, k.transpose(-2, -1)) / math.sqrt(hd)
    if attn_mask is not None:  # PyTorch's convention here: True (or -inf) masks a position out
        bias = _C.zeros(list(attn_mask.shape), dtype=scores.dtype).masked_fill(attn_mask, float("-inf")) \
            if attn_mask.dtype == _C.bool else attn_mask.to(scores.dtype)
        if bias.dim() == 3:
            bias = bias.reshape(N, num_heads, L, S)
        scores = scores + bias
    if key_padding_mask is not None:
        kp = key_padding_mask.reshape(N, 1, 1, S)
        kp = _C.zeros(list(kp.shape), dtype=scores.dtype).masked_fill(kp, float("-inf")) \
            if kp.dtype == _C.bool else kp.to(scores.dtype)
        scores = scores + kp
    attn = _C.softmax(scores, -1)
    if dropout_p > 0.0 and training:
        attn = dropout(attn, dropout_p, True)
    out = _C.matmul(attn, v).permute(2, 0, 1, 3).reshape(L, N, E)
    out = linear(out, out_proj_weight, out_proj_bias)
    weights = None
    if need_weights:
        weights = attn.mean(1) if average_attn_weights else attn
    if unbatched:
        out = out.squeeze(1)
        weights = weights.squeeze(0) if weights is not None else None
    return out, weights


def _pad_last(mask):
    """One more key position, not masked."""
    pad = _C.zeros(list(mask.shape[:-1]) + [1], dtype=mask.dtype)
    return _C.cat([mask, pad], -1)
