from typing import Optional, Tuple

import ember
from ember import Tensor, nn
from ember.nn import functional as F


class InProjContainer(nn.Module):
    """The query, key and value projections of multi-head attention, as three modules."""

    def __init__(self, query_proj: nn.Module, key_proj: nn.Module, value_proj: nn.Module):
        super().__init__()
        self.query_proj, self.key_proj, self.value_proj = query_proj, key_proj, value_proj

    def forward(self, query: Tensor, key: Tensor, value: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        return self.query_proj(query), self.key_proj(key), self.value_proj(value)


class ScaledDotProduct(nn.Module):
    """softmax(q k^T / sqrt(d)) v over (L, N*H, E) inputs ((N*H, L, E) with batch_first), with an optional
    boolean `attn_mask` (True: masked) of shape (1 or N*H, L, S), and bias_k/bias_v rows appended to the
    keys and values."""

    def __init__(self, dropout: float = 0.0, batch_first: bool = False):
        super().__init__()
        self.dropout, self.batch_first = dropout, batch_first

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        attn_mask: Optional[Tensor] = None,
        bias_k: Optional[Tensor] = None,
        bias_v: Optional[Tensor] = None,
    ) -> Tuple[Tensor, Tensor]:
        if self.batch_first:
            query, key, value = query.transpose(-3, -2), key.transpose(-3, -2), value.transpose(-3, -2)
        if bias_k is not None and bias_v is not None:
            for name, bias, target in (("bias_k", bias_k, key), ("bias_v", bias_v, value)):
                if bias.size(-1) != target.size(-1) or bias.size(-2) != target.size(-2) or bias.size(-3) != 1:
                    raise ValueError(
                        f"ScaledDotProduct: {name} of shape {tuple(bias.shape)} does not fit "
                        f"{'key' if name == 'bias_k' else 'value'} of shape {tuple(target.shape)}"
                    )
            key, value = ember.cat([key, bias_k]), ember.cat([value, bias_v])
            if attn_mask is not None:
                attn_mask = F.pad(attn_mask, (0, 1))
        tgt_len, head_dim = query.size(-3), query.size(-1)
        if not query.size(-1) == key.size(-1) == value.size(-1):
            raise ValueError("ScaledDotProduct: the feature dim of query, key, value must be equal")
        if key.shape != value.shape:
            raise ValueError(
                f"ScaledDotProduct: shapes of key {tuple(key.shape)} and value {tuple(value.shape)} must match"
            )
        src_len = key.size(-3)
        batch_heads = max(query.size(-2), key.size(-2))
        query, key, value = query.transpose(-2, -3), key.transpose(-2, -3), value.transpose(-2, -3)
        query = query * (float(head_dim) ** -0.5)
        if attn_mask is not None:
            if attn_mask.dim() != 3:
                raise RuntimeError("attn_mask must be a 3D tensor.")
            if (
                attn_mask.size(-1) != src_len
                or attn_mask.size(-2) != tgt_len
                or attn_mask.size(-3) not in (1, batch_heads)
            ):
                raise RuntimeError("The size of the attn_mask is not correct.")
            if attn_mask.dtype != ember.bool:
                raise RuntimeError("Only bool tensor is supported for attn_mask")
        weights = ember.matmul(query, key.transpose(-2, -1))
        if attn_mask is not None:
            weights = weights.masked_fill(attn_mask, -1e8)
        weights = F.softmax(weights, dim=-1)
        weights = F.dropout(weights, p=self.dropout, training=self.training)
        output = ember.matmul(weights, value)
        return (output, weights) if self.batch_first else (output.transpose(-3, -2), weights)


class MultiheadAttentionContainer(nn.Module):
    """Multi-head attention assembled from an in-projection container, an attention layer (such as
    ScaledDotProduct) and an output projection; inputs (L, N, E), or (N, L, E) with batch_first."""

    def __init__(
        self,
        nhead: int,
        in_proj_container: nn.Module,
        attention_layer: nn.Module,
        out_proj: nn.Module,
        batch_first: bool = False,
    ):
        super().__init__()
        self.nhead, self.in_proj_container, self.attention_layer = nhead, in_proj_container, attention_layer
        self.out_proj, self.batch_first = out_proj, batch_first

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        attn_mask: Optional[Tensor] = None,
        bias_k: Optional[Tensor] = None,
        bias_v: Optional[Tensor] = None,
    ) -> Tuple[Tensor, Tensor]:
        if self.batch_first:
            query, key, value = query.transpose(-3, -2), key.transpose(-3, -2), value.transpose(-3, -2)
        tgt_len, src_len, bsz, embed_dim = query.size(-3), key.size(-3), query.size(-2), query.size(-1)
        q, k, v = self.in_proj_container(query, key, value)
        heads = []
        for name, x, length in (("query", q, tgt_len), ("key", k, src_len), ("value", v, src_len)):
            if x.size(-1) % self.nhead != 0:
                raise ValueError(
                    f"MultiheadAttentionContainer: {name}'s embed_dim ({x.size(-1)}) must be "
                    f"divisible by the number of heads ({self.nhead})"
                )
            heads.append(x.reshape(length, bsz * self.nhead, x.size(-1) // self.nhead))
        output, weights = self.attention_layer(*heads, attn_mask=attn_mask, bias_k=bias_k, bias_v=bias_v)
        output = self.out_proj(output.reshape(tgt_len, bsz, embed_dim))
        if self.batch_first:
            output = output.transpose(-3, -2)
        return output, weights
