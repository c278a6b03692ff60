"""Wav2Vec2Model from Hugging Face transformers' Wav2Vec2 / HuBERT models (their module names already match
torchaudio's below the top level: only the prefix and the CTC head's name change)."""
import re

from ..model import wav2vec2_model
from ._state import config_value, load_mapped, state_dict_of

# newer transformers keep the positional conv's weight norm as a parametrization
_PARAMETRIZED = {"parametrizations.weight.original0": "weight_g", "parametrizations.weight.original1": "weight_v"}
_PREFIXES = ("wav2vec2.", "hubert.")


def _config(cfg):
    norm = config_value(cfg, "feat_extract_norm")
    return dict(
        extractor_mode=f"{norm}_norm",
        extractor_conv_layer_config=list(zip(config_value(cfg, "conv_dim"), config_value(cfg, "conv_kernel"),
                                             config_value(cfg, "conv_stride"))),
        extractor_conv_bias=config_value(cfg, "conv_bias"),
        encoder_embed_dim=config_value(cfg, "hidden_size"),
        encoder_projection_dropout=config_value(cfg, "feat_proj_dropout"),
        encoder_pos_conv_kernel=config_value(cfg, "num_conv_pos_embeddings"),
        encoder_pos_conv_groups=config_value(cfg, "num_conv_pos_embedding_groups"),
        encoder_num_layers=config_value(cfg, "num_hidden_layers"),
        encoder_num_heads=config_value(cfg, "num_attention_heads"),
        encoder_attention_dropout=config_value(cfg, "attention_dropout"),
        encoder_ff_interm_features=config_value(cfg, "intermediate_size"),
        encoder_ff_interm_dropout=config_value(cfg, "activation_dropout"),
        encoder_dropout=config_value(cfg, "hidden_dropout"),
        encoder_layer_norm_first=config_value(cfg, "do_stable_layer_norm"),
        encoder_layer_drop=config_value(cfg, "layerdrop"),
    )


def _map_key(key):
    """Source key -> our key, or None for parts we do not import (masking embedding, quantizer, adapters)."""
    for prefix in _PREFIXES:
        if key.startswith(prefix):
            key = key[len(prefix):]
            break
    if key.startswith("lm_head."):
        return "aux." + key[len("lm_head."):]
    for old, new in _PARAMETRIZED.items():
        key = key.replace(old, new)
    if key.startswith(("feature_extractor.", "feature_projection.")):
        return key if key.startswith("feature_extractor.") else "encoder." + key
    if re.match(r"encoder\.(pos_conv_embed|layer_norm|layers)\.", key):
        return "encoder.transformer." + key[len("encoder."):]
    return None


def import_huggingface_model(original, config=None):
    """original: a transformers Wav2Vec2/HuBERT model (ForCTC or bare) or its state dict; config: its config
    (object or dict with transformers' field names; taken from original.config when omitted). A CTC head
    (lm_head) becomes the `aux` Linear."""
    if config is None:
        if not hasattr(original, "config"):
            raise ValueError("import_huggingface_model: pass config= with a state dict")
        config = original.config
    source = state_dict_of(original)
    mapped = {}
    for key, value in source.items():
        new = _map_key(key)
        if new is not None:
            mapped[new] = value
    aux_num_out = mapped["aux.weight"].shape[0] if "aux.weight" in mapped else None
    model = wav2vec2_model(**_config(config), aux_num_out=aux_num_out)
    return load_mapped(model, mapped)
