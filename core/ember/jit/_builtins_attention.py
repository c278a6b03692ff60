"""Script version of ember.nn.functional.multi_head_attention_forward (see _builtins_nn.py for why): the
eager function's computation on (L, N, E) queries and (S, N, E) keys and values (or unbatched (L, E)),
masks given as bools (True masks out) or as additive floats."""
from __future__ import annotations

from typing import Optional, Tuple

import ember
from ember import Tensor




def _pad_last(mask: Tensor) -> Tensor:
    """One more key position, not masked."""
    return ember.cat([mask, ember.zeros_like(mask.narrow(-1, 0, 1))], -1)


def _as_bias(mask: Tensor, like: Tensor) -> Tensor:
    """A mask as an additive bias of like's dtype: -inf where a bool mask is True, a float mask as it is."""
    if mask.dtype == ember.bool:
        return ember.zeros_like(mask, dtype=like.dtype).masked_fill(mask, float("-inf"))
    return mask.to(like.dtype)


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor],
                                 bias_k: Optional[Tensor], bias_v: Optional[Tensor], add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Optional[Tensor],
                                 training: bool = True, key_padding_mask: Optional[Tensor] = None,
                                 need_weights: bool = True, attn_mask: Optional[Tensor] = None,
                                 use_separate_proj_weight: bool = False, q_proj_weight: Optional[Tensor] = None,
                                 k_proj_weight: Optional[Tensor] = None, v_proj_weight: Optional[Tensor] = None,
                                 static_k: Optional[Tensor] = None, static_v: Optional[Tensor] = None,
                                 average_attn_weights: bool = True,
                                 is_causal: bool = False) -> Tuple[Tensor, Optional[Tensor]]:
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
    L, N, E = query.size(0), query.size(1), query.size(2)
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    if E % num_heads != 0:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but a q/k/v_proj_weight is None")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3, 0)
    hd = E // num_heads
    b_q: Optional[Tensor] = None
    b_k: Optional[Tensor] = None
    b_v: Optional[Tensor] = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3, 0)
    linear = ember.nn.functional.linear
    q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)
    if bias_k is not None and bias_v is not None:
        k = ember.cat([k, bias_k.reshape([1, 1, E]).tile([1, N, 1])])
        v = ember.cat([v, bias_v.reshape([1, 1, E]).tile([1, N, 1])])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    q = q.reshape([L, N, num_heads, hd]).permute([1, 2, 0, 3])
    k = k.reshape([k.size(0), N, num_heads, hd]).permute([1, 2, 0, 3])
    v = v.reshape([v.size(0), N, num_heads, hd]).permute([1, 2, 0, 3])
    if static_k is not None:
        k = static_k.reshape([N, num_heads, static_k.size(1), hd])
    if static_v is not None:
        v = static_v.reshape([N, num_heads, static_v.size(1), hd])
    if add_zero_attn:
        k = ember.cat([k, ember.zeros_like(k.narrow(2, 0, 1))], 2)
        v = ember.cat([v, ember.zeros_like(v.narrow(2, 0, 1))], 2)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    S = k.size(2)
    scores = ember.matmul(q, k.transpose(-2, -1)) / hd ** 0.5
    if attn_mask is not None:
        bias = _as_bias(attn_mask, scores)
        if bias.dim() == 3:
            bias = bias.reshape([N, num_heads, L, S])
        scores = scores + bias
    if key_padding_mask is not None:
        scores = scores + _as_bias(key_padding_mask.reshape([N, 1, 1, S]), scores)
    attn = ember.softmax(scores, -1)
    if dropout_p > 0.0 and training:
        attn = ember.nn.functional.dropout(attn, dropout_p, True)
    out = ember.matmul(attn, v).permute([2, 0, 1, 3]).reshape([L, N, E])
    out = linear(out, out_proj_weight, out_proj_bias)
    weights: Optional[Tensor] = None
    if need_weights:
        weights = attn.mean([1]) if average_attn_weights else attn
    if unbatched:
        out = out.squeeze(1)
        if weights is not None:
            weights = weights.squeeze(0)
    return out, weights
