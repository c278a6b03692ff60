"""F.multi_head_attention_forward (nn.MultiheadAttention, and so TransformerEncoderLayer) decomposed into
MatMul/Softmax: q, k, v projected from (L|S, N, E), split into heads as (N, H, L|S, E/H), scaled dot
products with the masks added, softmax, the heads joined again and the output projection. Every Reshape
copies the sequence and batch sizes from its input, so both may be dynamic axes."""
from __future__ import annotations

import math

import numpy as np

from ._registry import bind_args, register, unsupported_option
from ._trace import Value

_NAMES = ["query", "key", "value", "embed_dim_to_check", "num_heads", "in_proj_weight", "in_proj_bias", "bias_k",
          "bias_v", "add_zero_attn", "dropout_p", "out_proj_weight", "out_proj_bias", "training", "key_padding_mask",
          "need_weights", "attn_mask", "use_separate_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight",
          "static_k", "static_v", "average_attn_weights", "is_causal"]
_DEFAULTS = {"training": True, "key_padding_mask": None, "need_weights": True, "attn_mask": None,
             "use_separate_proj_weight": False, "q_proj_weight": None, "k_proj_weight": None, "v_proj_weight": None,
             "static_k": None, "static_v": None, "average_attn_weights": True, "is_causal": False}


def _array(t):
    if isinstance(t, Value):
        raise unsupported_option("multi_head_attention_forward", "projection weights computed from the inputs")
    return None if t is None else t.detach().numpy()


def _project(b, x, weight, bias, hint):
    """x (an ONNX name) @ weight.T + bias, weight and bias constant arrays."""
    out = b.add("MatMul", [x, b.tensor(weight.T, f"{hint}_weight_t", is_param=True)])
    return out if bias is None else b.add("Add", [out, b.tensor(bias, f"{hint}_bias", is_param=True)])


def _mask_to_additive(b, mask, dtype):
    """A bool mask (True: not allowed) becomes -inf/0; a float mask is added as it is."""
    name = b.name(mask)
    if str(mask.dtype) == "ember.bool":
        return b.add("Where", [name, b.scalar(float("-inf"), dtype), b.scalar(0.0, dtype)])
    return b.cast(name, mask.dtype, dtype)


@register("multi_head_attention_forward")
def multi_head_attention(b, node):
    a = bind_args(node, _NAMES, _DEFAULTS)
    for opt in ("bias_k", "static_k", "static_v"):
        if a[opt] is not None:
            raise unsupported_option("multi_head_attention_forward", opt)
    if a["add_zero_attn"]:
        raise unsupported_option("multi_head_attention_forward", "add_zero_attn=True")
    if a["training"] and a["dropout_p"] > 0:
        raise unsupported_option("multi_head_attention_forward", "training=True with dropout")
    query = a["query"]
    if len(query.shape) != 3:
        raise unsupported_option("multi_head_attention_forward", "an unbatched (2-D) query")
    embed, heads = a["embed_dim_to_check"], a["num_heads"]
    head_dim = embed // heads
    dt = query.dtype
    if a["use_separate_proj_weight"]:
        ws = [_array(a[f"{n}_proj_weight"]) for n in "qkv"]
    else:
        ws = np.split(_array(a["in_proj_weight"]), 3)
    bs = [None] * 3 if a["in_proj_bias"] is None else np.split(_array(a["in_proj_bias"]), 3)
    split_heads = b.ints([0, 0, heads, head_dim], "heads_shape")
    qkv = []
    for src, w, bias, hint in zip((query, a["key"], a["value"]), ws, bs, ("q", "k", "v")):
        qkv.append(b.add("Reshape", [_project(b, b.name(src), w, bias, f"attn_{hint}"), split_heads]))  # (L, N, H, D)
    q = b.add("Transpose", [qkv[0]], perm=[1, 2, 0, 3])  # (N, H, L, D)
    k_t = b.add("Transpose", [qkv[1]], perm=[1, 2, 3, 0])  # (N, H, D, S)
    v = b.add("Transpose", [qkv[2]], perm=[1, 2, 0, 3])  # (N, H, S, D)
    scores = b.add("Mul", [b.add("MatMul", [q, k_t]), b.scalar(1.0 / math.sqrt(head_dim), dt)])  # (N, H, L, S)
    mask = a["attn_mask"]
    if mask is not None:
        additive = _mask_to_additive(b, mask, dt)
        if len(mask.shape) == 3:  # (N*H, L, S)
            additive = b.add("Reshape", [additive, b.ints([-1, heads, *mask.shape[1:]], "mask_shape")])
        scores = b.add("Add", [scores, additive])
    padding = a["key_padding_mask"]
    if padding is not None:  # (N, S) -> (N, 1, 1, S)
        additive = b.add("Unsqueeze", [_mask_to_additive(b, padding, dt), b.ints([1, 2], "axes")])
        scores = b.add("Add", [scores, additive])
    weights = b.add("Softmax", [scores], axis=-1)
    heads_out = b.add("Transpose", [b.add("MatMul", [weights, v])], perm=[2, 0, 1, 3])  # (L, N, H, D)
    joined = b.add("Reshape", [heads_out, b.ints([0, 0, -1], "joined_shape")])
    out = _project(b, joined, _array(a["out_proj_weight"]), _array(a["out_proj_bias"]), "attn_out")
    if not a["need_weights"]:
        return (out, None)
    if a["average_attn_weights"]:
        if b.opset >= 18:
            weights = b.add("ReduceMean", [weights, b.ints([1], "axes")], keepdims=0)
        else:
            weights = b.add("ReduceMean", [weights], axes=[1], keepdims=0)
    return (out, weights)


@register("scaled_dot_product_attention")
def scaled_dot_product_attention(b, node):
    a = bind_args(node, ["query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa"],
                  {"attn_mask": None, "dropout_p": 0.0, "is_causal": False, "scale": None, "enable_gqa": False})
    if a["dropout_p"] > 0:
        raise unsupported_option("scaled_dot_product_attention", "dropout_p > 0")
    if a["enable_gqa"]:
        raise unsupported_option("scaled_dot_product_attention", "enable_gqa=True")
    q, k = a["query"], a["key"]
    dt, rank = q.dtype, len(k.shape)
    scale = a["scale"] if a["scale"] is not None else 1.0 / math.sqrt(q.shape[-1])
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    scores = b.add("MatMul", [b.name(q), b.add("Transpose", [b.name(k)], perm=perm)])
    scores = b.add("Mul", [scores, b.scalar(scale, dt)])
    if a["is_causal"]:  # keep j <= i: the lower triangle of an (L, S) matrix of ones, shaped at run time
        lengths = b.add("Concat", [b.add("Shape", [b.name(q)], start=-2, end=-1),
                                   b.add("Shape", [b.name(k)], start=-2, end=-1)], axis=0)
        ones = b.add("ConstantOfShape", [lengths], value=b.onnx.numpy_helper.from_array(np.ones(1, np.float32)))
        allowed = b.add("Cast", [b.add("Trilu", [ones], upper=0)], to=b.onnx.TensorProto.BOOL)
        scores = b.add("Where", [allowed, scores, b.scalar(float("-inf"), dt)])
    if a["attn_mask"] is not None:
        mask = a["attn_mask"]
        if str(mask.dtype) == "ember.bool":  # True: may attend
            scores = b.add("Where", [b.name(mask), scores, b.scalar(float("-inf"), dt)])
        else:
            scores = b.add("Add", [scores, b.name(mask)])
    return b.add("MatMul", [b.add("Softmax", [scores], axis=-1), b.name(a["value"])])
