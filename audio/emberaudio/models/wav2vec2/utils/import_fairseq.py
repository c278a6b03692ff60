"""Wav2Vec2Model from fairseq's wav2vec 2.0 / HuBERT checkpoints (pre-trained, or fine-tuned for CTC with
the `w2v_encoder.` wrapper), by renaming fairseq's parameters to torchaudio's."""
import re

from ..model import wav2vec2_model
from ._state import config_value, literal_arith, load_mapped, state_dict_of

_RENAMES = [  # (fairseq pattern, ours), tried in order on keys with the w2v_encoder.w2v_model. prefix removed
    (r"feature_extractor\.conv_layers\.(\d+)\.0\.(weight|bias)$", r"feature_extractor.conv_layers.\1.conv.\2"),
    (r"feature_extractor\.conv_layers\.(\d+)\.2\.1\.(weight|bias)$",
     r"feature_extractor.conv_layers.\1.layer_norm.\2"),
    (r"feature_extractor\.conv_layers\.0\.2\.(weight|bias)$", r"feature_extractor.conv_layers.0.layer_norm.\1"),
    (r"layer_norm\.(weight|bias)$", r"encoder.feature_projection.layer_norm.\1"),
    (r"post_extract_proj\.(weight|bias)$", r"encoder.feature_projection.projection.\1"),
    (r"encoder\.pos_conv\.0\.(bias|weight_g|weight_v)$", r"encoder.transformer.pos_conv_embed.conv.\1"),
    (r"encoder\.layer_norm\.(weight|bias)$", r"encoder.transformer.layer_norm.\1"),
    (r"encoder\.layers\.(\d+)\.self_attn\.((k|v|q|out)_proj)\.(weight|bias)$",
     r"encoder.transformer.layers.\1.attention.\2.\4"),
    (r"encoder\.layers\.(\d+)\.self_attn_layer_norm\.(weight|bias)$", r"encoder.transformer.layers.\1.layer_norm.\2"),
    (r"encoder\.layers\.(\d+)\.fc1\.(weight|bias)$",
     r"encoder.transformer.layers.\1.feed_forward.intermediate_dense.\2"),
    (r"encoder\.layers\.(\d+)\.fc2\.(weight|bias)$", r"encoder.transformer.layers.\1.feed_forward.output_dense.\2"),
    (r"encoder\.layers\.(\d+)\.final_layer_norm\.(weight|bias)$",
     r"encoder.transformer.layers.\1.final_layer_norm.\2"),
]
# pre-training-only parts (masking, quantizer, targets) that the encoder model does not have
_PRETRAINING_ONLY = re.compile(r"(mask_emb|label_embs_concat|quantizer\.|project_q\.|final_proj\.|target_glu\.)")


def _config(cfg):
    """fairseq's model args (a fine-tuned model's `w2v_args` model section is used when present)."""
    if isinstance(cfg, dict) and "w2v_args" in cfg:
        finetune, pretrain = cfg, cfg["w2v_args"]["model"] if "model" in cfg["w2v_args"] else cfg["w2v_args"]
    else:
        finetune = pretrain = cfg
    layers = config_value(pretrain, "conv_feature_layers")
    return dict(
        extractor_mode="group_norm" if config_value(pretrain, "extractor_mode") == "default" else "layer_norm",
        extractor_conv_layer_config=literal_arith(layers) if isinstance(layers, str) else list(layers),
        extractor_conv_bias=config_value(pretrain, "conv_bias"),
        encoder_embed_dim=config_value(pretrain, "encoder_embed_dim"),
        encoder_projection_dropout=config_value(pretrain, "dropout_input"),
        encoder_pos_conv_kernel=config_value(pretrain, "conv_pos"),
        encoder_pos_conv_groups=config_value(pretrain, "conv_pos_groups"),
        encoder_num_layers=config_value(pretrain, "encoder_layers"),
        encoder_num_heads=config_value(pretrain, "encoder_attention_heads"),
        encoder_attention_dropout=config_value(pretrain, "attention_dropout"),
        encoder_ff_interm_features=config_value(pretrain, "encoder_ffn_embed_dim"),
        encoder_ff_interm_dropout=config_value(finetune, "activation_dropout"),
        encoder_dropout=config_value(pretrain, "dropout"),
        encoder_layer_norm_first=config_value(pretrain, "layer_norm_first"),
        encoder_layer_drop=config_value(finetune, "layerdrop"),
    )


def _map_key(key):
    if key.startswith("w2v_encoder.proj."):
        return "aux." + key[len("w2v_encoder.proj."):]
    key = key[len("w2v_encoder.w2v_model."):] if key.startswith("w2v_encoder.w2v_model.") else key
    if _PRETRAINING_ONLY.match(key):
        return None
    for pattern, replacement in _RENAMES:
        if re.match(pattern, key):
            return re.sub(pattern, replacement, key)
    raise ValueError(f"Unexpected key: {key}")


def import_fairseq_model(original, config):
    """original: a fairseq Wav2Vec2Model / HubertModel / Wav2VecCtc (or its state dict); config: fairseq's model
    args as a dict or namespace (conv_feature_layers, encoder_embed_dim, ...). Fine-tuned models' `proj`
    becomes the `aux` Linear."""
    mapped = {}
    for key, value in state_dict_of(original).items():
        new = _map_key(key)
        if new is not None:
            mapped[new] = value
    aux_num_out = mapped["aux.weight"].shape[0] if "aux.weight" in mapped else None
    model = wav2vec2_model(**_config(config), aux_num_out=aux_num_out)
    return load_mapped(model, mapped)
