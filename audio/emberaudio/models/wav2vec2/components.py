"""wav2vec 2.0 / HuBERT building blocks with torchaudio's module tree (feature_extractor.conv_layers.N.{conv,
layer_norm}, encoder.feature_projection, encoder.transformer.{pos_conv_embed,layer_norm,layers.N.{attention,
layer_norm,feed_forward,final_layer_norm}}), so state dicts from torchaudio and Hugging Face load unchanged."""
from typing import Optional, Tuple

import ember
from ember import Tensor, nn

_DEFAULT_CONV_LAYERS = [(512, 10, 5)] + [(512, 3, 2)] * 4 + [(512, 2, 2)] * 2


class LayerNorm(nn.LayerNorm):
    """LayerNorm over the channel axis of a (batch, channels, frames) tensor."""

    def forward(self, input: Tensor) -> Tensor:
        x = nn.functional.layer_norm(input.transpose(-2, -1), self.normalized_shape, self.weight, self.bias, self.eps)
        return x.transpose(-2, -1)


class ConvLayerBlock(nn.Module):
    """Conv1d -> optional norm -> GELU; also maps valid lengths through the convolution."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, bias, layer_norm):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.layer_norm = layer_norm
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, bias=bias)

    def forward(self, x: Tensor, length: Optional[Tensor]) -> Tuple[Tensor, Optional[Tensor]]:
        x = self.conv(x)
        if self.layer_norm is not None:
            x = self.layer_norm(x)
        x = nn.functional.gelu(x)
        if length is not None:
            length = ember.div(length - self.kernel_size, self.stride, rounding_mode="floor") + 1
            length = ember.clamp(length, min=0)  # inputs shorter than the kernel give no frames
        return x, length


class FeatureExtractor(nn.Module):
    """(batch, time) waveforms -> (batch, frames, channels) features and their valid lengths."""

    def __init__(self, conv_layers):
        super().__init__()
        self.conv_layers = conv_layers

    def forward(self, x: Tensor, length: Optional[Tensor]) -> Tuple[Tensor, Optional[Tensor]]:
        if x.dim() != 2:
            raise ValueError(f"Expected the input Tensor to be 2D (batch, time), but received {list(x.shape)}")
        x = x.unsqueeze(1)
        for layer in self.conv_layers:
            x, length = layer(x, length)
        return x.transpose(1, 2), length


class FeatureProjection(nn.Module):
    def __init__(self, in_features, out_features, dropout):
        super().__init__()
        self.layer_norm = nn.LayerNorm(in_features)
        self.projection = nn.Linear(in_features, out_features)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.projection(self.layer_norm(x)))


class ConvolutionalPositionalEmbedding(nn.Module):
    """Grouped convolution over frames under weight normalisation (over the kernel axis, dim=2, as fairseq);
    an even kernel's extra output frame is dropped."""

    def __init__(self, embed_dim, kernel_size, groups):
        super().__init__()
        self.embed_dim = embed_dim
        self.kernel_size = kernel_size
        conv = nn.Conv1d(embed_dim, embed_dim, kernel_size=kernel_size, padding=kernel_size // 2, groups=groups)
        self.conv = nn.utils.weight_norm(conv, name="weight", dim=2)
        self.num_remove = 1 if kernel_size % 2 == 0 else 0

    def forward(self, x):
        x = self.conv(x.transpose(-2, -1))
        if self.num_remove > 0:
            x = x[..., : -self.num_remove]
        return nn.functional.gelu(x).transpose(-2, -1)


class SelfAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        head_dim = embed_dim // num_heads
        if head_dim * num_heads != embed_dim:
            raise ValueError(f"`embed_dim ({embed_dim})` is not divisible by `num_heads ({num_heads})`")
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.head_dim = head_dim
        self.scaling = head_dim**-0.5
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=True)

    def forward(self, x: Tensor, attention_mask: Optional[Tensor] = None) -> Tensor:
        if x.dim() != 3 or x.shape[2] != self.embed_dim:
            raise ValueError(f"The expected input shape is (batch, sequence, embed_dim=={self.embed_dim}). "
                             f"Found {x.shape}.")
        batch_size, length, embed_dim = x.shape[0], x.shape[1], x.shape[2]
        if attention_mask is not None and list(attention_mask.shape) != [batch_size, 1, length, length]:
            raise ValueError(f"The expected attention mask shape is {(batch_size, 1, length, length)}. "
                             f"Found {attention_mask.shape}.")
        shape = [batch_size, length, self.num_heads, self.head_dim]
        q = self.q_proj(x).view(shape).transpose(2, 1)
        k = self.k_proj(x).view(shape).permute(0, 2, 3, 1)
        v = self.v_proj(x).view(shape).transpose(2, 1)
        weights = self.scaling * (q @ k)
        if attention_mask is not None:
            weights = weights + attention_mask
        weights = nn.functional.softmax(weights, dim=-1)
        weights = nn.functional.dropout(weights, p=self.dropout, training=self.training)
        output = (weights @ v).transpose(2, 1).reshape(batch_size, length, embed_dim)
        return self.out_proj(output)


class FeedForward(nn.Module):
    def __init__(self, io_features, intermediate_features, intermediate_dropout, output_dropout):
        super().__init__()
        self.intermediate_dense = nn.Linear(io_features, intermediate_features)
        self.intermediate_dropout = nn.Dropout(intermediate_dropout)
        self.output_dense = nn.Linear(intermediate_features, io_features)
        self.output_dropout = nn.Dropout(output_dropout)

    def forward(self, x):
        x = self.intermediate_dropout(nn.functional.gelu(self.intermediate_dense(x)))
        return self.output_dropout(self.output_dense(x))


class EncoderLayer(nn.Module):
    """Self-attention and feed-forward with residuals; norms before (layer_norm_first, "large" models) or after."""

    def __init__(self, attention, dropout, layer_norm_first, feed_forward):
        super().__init__()
        self.attention = attention
        self.dropout = nn.Dropout(dropout)
        self.layer_norm = nn.LayerNorm(attention.embed_dim)
        self.layer_norm_first = layer_norm_first
        self.feed_forward = feed_forward
        self.final_layer_norm = nn.LayerNorm(attention.embed_dim)

    def forward(self, x: Tensor, attention_mask: Optional[Tensor] = None) -> Tensor:
        residual = x
        if self.layer_norm_first:
            x = self.layer_norm(x)
        x = residual + self.dropout(self.attention(x, attention_mask))
        if self.layer_norm_first:
            return x + self.feed_forward(self.final_layer_norm(x))
        x = self.layer_norm(x)
        return self.final_layer_norm(x + self.feed_forward(x))


class Transformer(nn.Module):
    def __init__(self, pos_conv_embed, dropout, layers, layer_norm_first, layer_drop):
        super().__init__()
        self.pos_conv_embed = pos_conv_embed
        self.layer_norm = nn.LayerNorm(pos_conv_embed.embed_dim)
        self.layer_norm_first = layer_norm_first
        self.layer_drop = layer_drop
        self.dropout = nn.Dropout(dropout)
        self.layers = layers

    def _preprocess(self, x):
        x = x + self.pos_conv_embed(x)
        if self.layer_norm_first:
            x = self.layer_norm(x)
        return self.dropout(x)

    def forward(self, x: Tensor, attention_mask: Optional[Tensor] = None) -> Tensor:
        x = self._preprocess(x)
        for layer in self.layers:
            # LayerDrop: in training each layer is skipped with probability layer_drop
            if not (self.training and bool(ember.rand(1) <= self.layer_drop)):
                x = layer(x, attention_mask)
        if not self.layer_norm_first:
            x = self.layer_norm(x)
        return x

    def get_intermediate_outputs(self, x, attention_mask=None, num_layers=None):
        """Outputs of the first `num_layers` layers (all when None), each (batch, frames, embed_dim)."""
        if num_layers is not None and not 0 < num_layers <= len(self.layers):
            raise ValueError(f"`num_layers` must be between [1, {len(self.layers)}]")
        ret = []
        x = self._preprocess(x)
        for layer in self.layers:
            x = layer(x, attention_mask)
            ret.append(x)
            if num_layers is not None and len(ret) >= num_layers:
                break
        return ret


class Encoder(nn.Module):
    def __init__(self, feature_projection, transformer):
        super().__init__()
        self.feature_projection = feature_projection
        self.transformer = transformer

    def _preprocess(self, features: Tensor, lengths: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        x = self.feature_projection(features)
        mask: Optional[Tensor] = None
        if lengths is not None:
            batch_size, max_len = x.shape[0], x.shape[1]
            padded = ember.arange(max_len, device=lengths.device).expand(batch_size, max_len) >= lengths[:, None]
            x = x.masked_fill(padded[:, :, None], 0.0)
            # additive attention mask: padded keys get -10000 before the softmax
            mask = -10000.0 * padded[:, None, None, :].to(dtype=features.dtype)
            mask = mask.expand(batch_size, 1, max_len, max_len)
        return x, mask

    def forward(self, features: Tensor, lengths: Optional[Tensor] = None) -> Tensor:
        x, mask = self._preprocess(features, lengths)
        return self.transformer(x, attention_mask=mask)

    def extract_features(self, features, lengths=None, num_layers=None):
        x, masks = self._preprocess(features, lengths)
        return self.transformer.get_intermediate_outputs(x, attention_mask=masks, num_layers=num_layers)


def _get_feature_extractor(norm_mode, shapes, bias):
    if norm_mode not in ("group_norm", "layer_norm"):
        raise ValueError(f"extractor_mode must be 'group_norm' or 'layer_norm', got {norm_mode!r}")
    blocks = []
    in_channels = 1
    for i, (out_channels, kernel_size, stride) in enumerate(shapes):
        norm = None
        if norm_mode == "group_norm" and i == 0:
            norm = nn.GroupNorm(num_groups=out_channels, num_channels=out_channels, affine=True)
        elif norm_mode == "layer_norm":
            norm = LayerNorm(normalized_shape=out_channels, elementwise_affine=True)
        blocks.append(ConvLayerBlock(in_channels, out_channels, kernel_size, stride, bias, norm))
        in_channels = out_channels
    return FeatureExtractor(nn.ModuleList(blocks))


def _get_encoder(in_features, embed_dim, dropout_input, pos_conv_kernel, pos_conv_groups, num_layers, num_heads,
                 attention_dropout, ff_interm_features, ff_interm_dropout, dropout, layer_norm_first, layer_drop):
    feature_projection = FeatureProjection(in_features, embed_dim, dropout_input)
    pos_conv = ConvolutionalPositionalEmbedding(embed_dim, pos_conv_kernel, pos_conv_groups)
    layers = nn.ModuleList()
    for _ in range(num_layers):
        attention = SelfAttention(embed_dim, num_heads, attention_dropout)
        feed_forward = FeedForward(embed_dim, ff_interm_features, ff_interm_dropout, dropout)
        layers.append(EncoderLayer(attention, dropout, layer_norm_first, feed_forward))
    # the transformer's own norm sits before the layers exactly when the layers normalise after (fairseq's layout)
    transformer = Transformer(pos_conv, dropout, layers, not layer_norm_first, layer_drop)
    return Encoder(feature_projection, transformer)
