"""Wav2Vec2Model (also HuBERT's encoder), its generic builder `wav2vec2_model` and the published
configurations (torchaudio 0.10's factories and argument names)."""
from typing import Optional, Tuple

from ember import Tensor, nn

from . import components

__all__ = ["Wav2Vec2Model", "wav2vec2_model", "wav2vec2_base", "wav2vec2_large", "wav2vec2_large_lv60k",
           "hubert_base", "hubert_large", "hubert_xlarge"]


class Wav2Vec2Model(nn.Module):
    """feature_extractor (conv stack) -> encoder (projection + transformer) -> optional aux Linear (e.g. CTC
    labels). forward(waveforms (batch, time), lengths=None) -> (outputs (batch, frames, dim), lengths)."""

    def __init__(self, feature_extractor, encoder, aux=None):
        super().__init__()
        self.feature_extractor = feature_extractor
        self.encoder = encoder
        self.aux = aux

    def extract_features(self, waveforms, lengths=None, num_layers=None):
        """The outputs of the transformer's first `num_layers` layers (all when None) and the valid lengths."""
        x, lengths = self.feature_extractor(waveforms, lengths)
        return self.encoder.extract_features(x, lengths, num_layers), lengths

    def forward(self, waveforms: Tensor, lengths: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        x, lengths = self.feature_extractor(waveforms, lengths)
        x = self.encoder(x, lengths)
        if self.aux is not None:
            x = self.aux(x)
        return x, lengths


def wav2vec2_model(extractor_mode, extractor_conv_layer_config, extractor_conv_bias, encoder_embed_dim,
                   encoder_projection_dropout, encoder_pos_conv_kernel, encoder_pos_conv_groups, encoder_num_layers,
                   encoder_num_heads, encoder_attention_dropout, encoder_ff_interm_features,
                   encoder_ff_interm_dropout, encoder_dropout, encoder_layer_norm_first, encoder_layer_drop,
                   aux_num_out=None):
    """Builds a Wav2Vec2Model from fairseq's hyper-parameters (extractor_conv_layer_config None: the published
    [(512, 10, 5)] + [(512, 3, 2)] * 4 + [(512, 2, 2)] * 2)."""
    if extractor_conv_layer_config is None:
        extractor_conv_layer_config = components._DEFAULT_CONV_LAYERS
    feature_extractor = components._get_feature_extractor(extractor_mode, extractor_conv_layer_config,
                                                          extractor_conv_bias)
    encoder = components._get_encoder(
        extractor_conv_layer_config[-1][0], encoder_embed_dim, encoder_projection_dropout, encoder_pos_conv_kernel,
        encoder_pos_conv_groups, encoder_num_layers, encoder_num_heads, encoder_attention_dropout,
        encoder_ff_interm_features, encoder_ff_interm_dropout, encoder_dropout, encoder_layer_norm_first,
        encoder_layer_drop)
    aux = nn.Linear(encoder_embed_dim, aux_num_out) if aux_num_out is not None else None
    return Wav2Vec2Model(feature_extractor, encoder, aux)


# (extractor_mode, conv_bias, embed_dim, layers, heads, ff_features, layer_norm_first) of each published model
_ARCH = {
    "wav2vec2_base": ("group_norm", False, 768, 12, 12, 3072, False),
    "wav2vec2_large": ("group_norm", False, 1024, 24, 16, 4096, False),
    "wav2vec2_large_lv60k": ("layer_norm", True, 1024, 24, 16, 4096, True),
    "hubert_base": ("group_norm", False, 768, 12, 12, 3072, False),
    "hubert_large": ("layer_norm", False, 1024, 24, 16, 4096, True),
    "hubert_xlarge": ("layer_norm", False, 1280, 48, 16, 5120, True),
}


def _build(arch, projection_dropout, attention_dropout, ff_interm_dropout, dropout, layer_drop, aux_num_out):
    mode, bias, dim, layers, heads, ff, norm_first = _ARCH[arch]
    return wav2vec2_model(mode, None, bias, dim, projection_dropout, 128, 16, layers, heads, attention_dropout, ff,
                          ff_interm_dropout, dropout, norm_first, layer_drop, aux_num_out)


def wav2vec2_base(encoder_projection_dropout=0.1, encoder_attention_dropout=0.1, encoder_ff_interm_dropout=0.1,
                  encoder_dropout=0.1, encoder_layer_drop=0.1, aux_num_out=None):
    return _build("wav2vec2_base", encoder_projection_dropout, encoder_attention_dropout, encoder_ff_interm_dropout,
                  encoder_dropout, encoder_layer_drop, aux_num_out)


def wav2vec2_large(encoder_projection_dropout=0.1, encoder_attention_dropout=0.1, encoder_ff_interm_dropout=0.1,
                   encoder_dropout=0.1, encoder_layer_drop=0.1, aux_num_out=None):
    return _build("wav2vec2_large", encoder_projection_dropout, encoder_attention_dropout, encoder_ff_interm_dropout,
                  encoder_dropout, encoder_layer_drop, aux_num_out)


def wav2vec2_large_lv60k(encoder_projection_dropout=0.1, encoder_attention_dropout=0.0,
                         encoder_ff_interm_dropout=0.1, encoder_dropout=0.0, encoder_layer_drop=0.1,
                         aux_num_out=None):
    return _build("wav2vec2_large_lv60k", encoder_projection_dropout, encoder_attention_dropout,
                  encoder_ff_interm_dropout, encoder_dropout, encoder_layer_drop, aux_num_out)


def hubert_base(encoder_projection_dropout=0.1, encoder_attention_dropout=0.1, encoder_ff_interm_dropout=0.0,
                encoder_dropout=0.1, encoder_layer_drop=0.05, aux_num_out=None):
    return _build("hubert_base", encoder_projection_dropout, encoder_attention_dropout, encoder_ff_interm_dropout,
                  encoder_dropout, encoder_layer_drop, aux_num_out)


def hubert_large(encoder_projection_dropout=0.0, encoder_attention_dropout=0.0, encoder_ff_interm_dropout=0.0,
                 encoder_dropout=0.0, encoder_layer_drop=0.0, aux_num_out=None):
    return _build("hubert_large", encoder_projection_dropout, encoder_attention_dropout, encoder_ff_interm_dropout,
                  encoder_dropout, encoder_layer_drop, aux_num_out)


def hubert_xlarge(encoder_projection_dropout=0.0, encoder_attention_dropout=0.0, encoder_ff_interm_dropout=0.0,
                  encoder_dropout=0.0, encoder_layer_drop=0.0, aux_num_out=None):
    return _build("hubert_xlarge", encoder_projection_dropout, encoder_attention_dropout, encoder_ff_interm_dropout,
                  encoder_dropout, encoder_layer_drop, aux_num_out)
