"""import_fairseq_model / import_huggingface_model on state dicts the tests write under the source projects'
parameter names (fairseq's Wav2VecCtc / pre-trained Wav2Vec2Model, transformers' Wav2Vec2ForCTC / HubertModel):
every imported tensor must equal its source and the imported model must compute what the original does."""
import numpy as np
import pytest

import ember
from emberaudio import models

CONV = [(8, 10, 5), (6, 3, 2)]


def _ours(mode, bias, norm_first, aux):
    ember.manual_seed(7)
    model = models.wav2vec2_model(mode, CONV, bias, 12, 0.0, 4, 2, 2, 3, 0.0, 16, 0.0, 0.0, norm_first, 0.0,
                                  aux_num_out=aux)
    with ember.no_grad():
        for t in model.state_dict().values():
            t.copy_(ember.randn(t.shape))
    return model.eval()


def _fairseq_names(ours, mode, finetuned):
    """Our model's tensors under fairseq's names (written independently of the importer's table)."""
    sd = ours.state_dict()
    prefix = "w2v_encoder.w2v_model." if finetuned else ""
    out = {}
    for i in range(len(CONV)):
        conv = f"feature_extractor.conv_layers.{i}.conv"
        out[f"{prefix}feature_extractor.conv_layers.{i}.0.weight"] = sd[f"{conv}.weight"]
        if f"{conv}.bias" in sd:
            out[f"{prefix}feature_extractor.conv_layers.{i}.0.bias"] = sd[f"{conv}.bias"]
        for p in ("weight", "bias"):
            norm = f"feature_extractor.conv_layers.{i}.layer_norm.{p}"
            if mode == "group_norm" and i == 0:
                out[f"{prefix}feature_extractor.conv_layers.0.2.{p}"] = sd[norm]
            elif mode == "layer_norm":
                out[f"{prefix}feature_extractor.conv_layers.{i}.2.1.{p}"] = sd[norm]
    for p in ("weight", "bias"):
        out[f"{prefix}layer_norm.{p}"] = sd[f"encoder.feature_projection.layer_norm.{p}"]
        out[f"{prefix}post_extract_proj.{p}"] = sd[f"encoder.feature_projection.projection.{p}"]
        out[f"{prefix}encoder.layer_norm.{p}"] = sd[f"encoder.transformer.layer_norm.{p}"]
    for p in ("bias", "weight_g", "weight_v"):
        out[f"{prefix}encoder.pos_conv.0.{p}"] = sd[f"encoder.transformer.pos_conv_embed.conv.{p}"]
    for n in range(2):
        ours_l, theirs = f"encoder.transformer.layers.{n}.", f"{prefix}encoder.layers.{n}."
        for p in ("weight", "bias"):
            for proj in ("k_proj", "v_proj", "q_proj", "out_proj"):
                out[f"{theirs}self_attn.{proj}.{p}"] = sd[f"{ours_l}attention.{proj}.{p}"]
            out[f"{theirs}self_attn_layer_norm.{p}"] = sd[f"{ours_l}layer_norm.{p}"]
            out[f"{theirs}fc1.{p}"] = sd[f"{ours_l}feed_forward.intermediate_dense.{p}"]
            out[f"{theirs}fc2.{p}"] = sd[f"{ours_l}feed_forward.output_dense.{p}"]
            out[f"{theirs}final_layer_norm.{p}"] = sd[f"{ours_l}final_layer_norm.{p}"]
    if finetuned:
        out["w2v_encoder.proj.weight"], out["w2v_encoder.proj.bias"] = sd["aux.weight"], sd["aux.bias"]
    else:  # pre-training parts the encoder model drops
        out["mask_emb"] = ember.randn(12)
        out["quantizer.vars"] = ember.randn(1, 4, 3)
        out["project_q.weight"] = ember.randn(3, 3)
        out["final_proj.weight"] = ember.randn(3, 12)
    return out


def _fairseq_args(mode, bias, norm_first):
    model = dict(extractor_mode="default" if mode == "group_norm" else "layer_norm",
                 conv_feature_layers="[(8, 10, 5)] + [(6, 3, 2)] * 1", conv_bias=bias, encoder_embed_dim=12,
                 dropout_input=0.0, conv_pos=4, conv_pos_groups=2, encoder_layers=2, encoder_attention_heads=3,
                 attention_dropout=0.0, encoder_ffn_embed_dim=16, activation_dropout=0.0, dropout=0.0,
                 layer_norm_first=norm_first, layerdrop=0.0)
    return model


def _same(imported, ours):
    a, b = imported.state_dict(), ours.state_dict()
    assert set(a) == set(b)
    for key in a:
        np.testing.assert_array_equal(a[key].numpy(), b[key].numpy(), err_msg=key)
    wave = ember.randn(2, 300)
    np.testing.assert_allclose(imported.eval()(wave)[0].detach().numpy(), ours(wave)[0].detach().numpy(), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("mode,bias,norm_first", [("group_norm", False, False), ("layer_norm", True, True)])
def test_import_fairseq_finetuned(mode, bias, norm_first):
    ours = _ours(mode, bias, norm_first, aux=7)
    finetune = dict(activation_dropout=0.0, layerdrop=0.0, w2v_args=dict(model=_fairseq_args(mode, bias, norm_first)))
    imported = models.import_fairseq_model(_fairseq_names(ours, mode, finetuned=True), finetune)
    assert imported.aux.out_features == 7
    _same(imported, ours)


@pytest.mark.parametrize("mode,bias,norm_first", [("group_norm", False, False), ("layer_norm", False, True)])
def test_import_fairseq_pretrained_drops_pretraining_parts(mode, bias, norm_first):
    ours = _ours(mode, bias, norm_first, aux=None)
    imported = models.import_fairseq_model(_fairseq_names(ours, mode, finetuned=False),
                                           _fairseq_args(mode, bias, norm_first))
    assert imported.aux is None
    _same(imported, ours)


def test_import_fairseq_rejects_unknown_and_missing_keys():
    ours = _ours("group_norm", False, False, aux=None)
    names = _fairseq_names(ours, "group_norm", finetuned=False)
    with pytest.raises(ValueError, match="Unexpected key: encoder.layers.0.mystery"):
        models.import_fairseq_model({**names, "encoder.layers.0.mystery": ember.zeros(1)},
                                    _fairseq_args("group_norm", False, False))
    del names["encoder.layers.1.fc1.weight"]
    with pytest.raises(RuntimeError, match="missing .*layers.1.feed_forward.intermediate_dense.weight"):
        models.import_fairseq_model(names, _fairseq_args("group_norm", False, False))
    with pytest.raises(ValueError, match="unsupported expression"):
        models.import_fairseq_model(names, dict(_fairseq_args("group_norm", False, False),
                                                conv_feature_layers="__import__('os')"))


class _HFConfig:
    def __init__(self, mode, bias, norm_first):
        self.feat_extract_norm = "group" if mode == "group_norm" else "layer"
        self.conv_dim, self.conv_kernel, self.conv_stride = (8, 6), (10, 3), (5, 2)
        self.conv_bias = bias
        self.hidden_size, self.num_hidden_layers, self.num_attention_heads, self.intermediate_size = 12, 2, 3, 16
        self.num_conv_pos_embeddings, self.num_conv_pos_embedding_groups = 4, 2
        self.feat_proj_dropout = self.attention_dropout = self.activation_dropout = self.hidden_dropout = 0.0
        self.layerdrop = 0.0
        self.do_stable_layer_norm = norm_first


def _hf_names(ours, top, ctc, parametrized):
    """transformers' names: top-level module name, lm_head for CTC, a masking embedding; newer releases keep the
    positional conv's weight norm as parametrizations.weight.original0/1."""
    out = {}
    for key, value in ours.state_dict().items():
        if key.startswith("aux."):
            out["lm_head." + key[4:]] = value
            continue
        key = key.replace("encoder.feature_projection.", "feature_projection.").replace("encoder.transformer.",
                                                                                         "encoder.")
        if parametrized:
            key = key.replace("conv.weight_g", "conv.parametrizations.weight.original0").replace(
                "conv.weight_v", "conv.parametrizations.weight.original1")
        out[top + key] = value
    out[top + "masked_spec_embed"] = ember.randn(12)
    return out


@pytest.mark.parametrize("mode,bias,norm_first,top,parametrized", [
    ("group_norm", False, False, "wav2vec2.", False), ("layer_norm", True, True, "hubert.", True)])
def test_import_huggingface_ctc(mode, bias, norm_first, top, parametrized):
    ours = _ours(mode, bias, norm_first, aux=9)
    imported = models.import_huggingface_model(_hf_names(ours, top, True, parametrized),
                                               _HFConfig(mode, bias, norm_first))
    assert imported.aux.out_features == 9
    _same(imported, ours)


def test_import_huggingface_from_a_module_with_config():
    ours = _ours("group_norm", False, False, aux=None)

    class Original:  # a bare Wav2Vec2Model: no prefix, config attached
        config = _HFConfig("group_norm", False, False)

        def state_dict(self):
            return _hf_names(ours, "", False, False)

    imported = models.import_huggingface_model(Original())
    assert imported.aux is None
    _same(imported, ours)
    with pytest.raises(ValueError, match="config="):
        models.import_huggingface_model(_hf_names(ours, "", False, False))
    with pytest.raises(KeyError, match="hidden_size"):
        models.import_huggingface_model(_hf_names(ours, "", False, False), {"feat_extract_norm": "group",
                                                                             "conv_dim": [8], "conv_kernel": [10],
                                                                             "conv_stride": [5], "conv_bias": False})
