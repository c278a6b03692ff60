"""emberaudio.models against torchaudio's published architectures (parameter counts and state_dict names
written out as literals from torchaudio's layer shapes) and output shapes/properties stated in its docs;
wav2vec 2.0's forward against a NumPy implementation in test_wav2vec2_reference.py."""
import numpy as np
import pytest

import ember
from emberaudio import models


def _count(model):
    return sum(p.numel() for p in model.parameters())


# torchaudio's builders with aux_num_out=None; wav2vec2_base agrees with Hugging Face's wav2vec2-base-960h
# (94,396,320 = this + 768 masking embedding + a 768x32 CTC head with bias)
@pytest.mark.parametrize("factory,count,dim", [
    ("wav2vec2_base", 94_370_944, 768), ("wav2vec2_large", 315_427_968, 1024),
    ("wav2vec2_large_lv60k", 315_437_696, 1024), ("hubert_base", 94_370_944, 768),
    ("hubert_large", 315_434_112, 1024), ("hubert_xlarge", 962_492_544, 1280)])
def test_wav2vec2_configurations_parameter_counts(factory, count, dim):
    with ember.device("meta"):  # shapes only: the large models would take gigabytes
        assert _count(getattr(models, factory)()) == count
        assert _count(getattr(models, factory)(aux_num_out=32)) == count + 32 * dim + 32


def test_wav2vec2_state_dict_names():
    with ember.device("meta"):
        keys = set(models.wav2vec2_base(aux_num_out=29).state_dict())
        lv60k = set(models.wav2vec2_large_lv60k().state_dict())
    for key in ["feature_extractor.conv_layers.0.conv.weight", "feature_extractor.conv_layers.0.layer_norm.weight",
                "feature_extractor.conv_layers.0.layer_norm.bias", "feature_extractor.conv_layers.6.conv.weight",
                "encoder.feature_projection.layer_norm.weight", "encoder.feature_projection.projection.weight",
                "encoder.transformer.pos_conv_embed.conv.weight_g", "encoder.transformer.pos_conv_embed.conv.weight_v",
                "encoder.transformer.pos_conv_embed.conv.bias", "encoder.transformer.layer_norm.weight",
                "encoder.transformer.layers.11.attention.q_proj.weight",
                "encoder.transformer.layers.0.attention.out_proj.bias", "encoder.transformer.layers.0.layer_norm.bias",
                "encoder.transformer.layers.0.feed_forward.intermediate_dense.weight",
                "encoder.transformer.layers.0.feed_forward.output_dense.bias",
                "encoder.transformer.layers.0.final_layer_norm.weight", "aux.weight", "aux.bias"]:
        assert key in keys, key
    assert "feature_extractor.conv_layers.1.layer_norm.weight" not in keys  # group norm: first block only
    assert "feature_extractor.conv_layers.0.conv.bias" not in keys
    assert "feature_extractor.conv_layers.6.layer_norm.weight" in lv60k
    assert "feature_extractor.conv_layers.6.conv.bias" in lv60k
    # conv weights, group norm, projection (norm + linear), pos conv (g, v, bias), transformer norm, 12 layers
    # of 4 attention linears + 2 norms + 2 feed-forward linears, aux
    assert len(keys) == 7 + 2 + 4 + 3 + 2 + 12 * 16 + 2


def test_wav2vec2_pos_conv_weight_norm_shapes():
    with ember.device("meta"):
        sd = models.wav2vec2_base().state_dict()
    assert tuple(sd["encoder.transformer.pos_conv_embed.conv.weight_g"].shape) == (1, 1, 128)
    assert tuple(sd["encoder.transformer.pos_conv_embed.conv.weight_v"].shape) == (768, 48, 128)


def test_other_models_parameter_counts():
    # Wav2Letter: front conv 1*250*250+250, conv 250*250*48+250, 7 x (250*250*7+250), 250*2000*32+2000,
    # 2000*2000+2000, 2000*40+40
    w2l = 62_750 + 3_000_250 + 7 * 437_750 + 16_002_000 + 4_002_000 + 80_040
    assert _count(models.Wav2Letter()) == w2l
    assert _count(models.Wav2Letter(num_classes=40, input_type="mfcc", num_features=13)) == w2l - 62_750 - 3_000_250 + (
        13 * 250 * 48 + 250)
    assert _count(models.ConvTasNet()) == 4_984_881
    assert _count(models.WaveRNN(upsample_scales=[5, 5, 8], n_classes=512, hop_length=200)) == 4_536_231
    assert _count(models.DeepSpeech(n_feature=128)) == 29_720_616


def test_wav2letter_output_shapes_and_log_probabilities():
    ember.manual_seed(0)
    model = models.Wav2Letter(num_classes=10).eval()
    out = model(ember.randn(2, 1, 16000))
    # front conv: (16000 + 90 - 250) // 160 + 1 = 100 frames; stride-2 conv: (100 + 46 - 48) // 2 + 1 = 50;
    # the kernel-32 conv with padding 16 adds one frame
    assert tuple(out.shape) == (2, 10, 51)
    np.testing.assert_allclose(out.exp().sum(1).detach().numpy(), 1.0, rtol=1e-5)
    mfcc = models.Wav2Letter(num_classes=5, input_type="mfcc", num_features=13)
    assert tuple(mfcc(ember.randn(3, 13, 40)).shape) == (3, 5, 21)
    with pytest.raises(ValueError, match="input_type"):
        models.Wav2Letter(input_type="spectrogram")


def test_deepspeech_shapes_and_errors():
    model = models.DeepSpeech(n_feature=20, n_hidden=16, n_class=7).eval()
    out = model(ember.randn(3, 1, 11, 20))
    assert tuple(out.shape) == (3, 11, 7)
    np.testing.assert_allclose(out.exp().sum(-1).detach().numpy(), 1.0, rtol=1e-5)
    with pytest.raises(ValueError, match="batch, 1, time, n_feature"):
        model(ember.randn(3, 11, 20))


def test_deepspeech_clipped_relu_and_direction_sum():
    # with the RNN's recurrences zeroed each direction is relu(W x + b): the model is then a plain function
    ember.manual_seed(1)
    model = models.DeepSpeech(n_feature=4, n_hidden=3, n_class=2).eval()
    with ember.no_grad():
        model.bi_rnn.weight_hh_l0.zero_()
        model.bi_rnn.weight_hh_l0_reverse.zero_()
    x = ember.randn(2, 1, 5, 4) * 30
    p = {k: v.numpy().astype(np.float64) for k, v in model.state_dict().items()}

    def fc(name, h):
        return np.clip(h @ p[f"{name}.fc.weight"].T + p[f"{name}.fc.bias"], 0, 20)

    h = fc("fc3", fc("fc2", fc("fc1", x.numpy()[:, 0].astype(np.float64))))
    fwd = np.maximum(h @ p["bi_rnn.weight_ih_l0"].T + p["bi_rnn.bias_ih_l0"] + p["bi_rnn.bias_hh_l0"], 0)
    bwd = np.maximum(h @ p["bi_rnn.weight_ih_l0_reverse"].T + p["bi_rnn.bias_ih_l0_reverse"]
                     + p["bi_rnn.bias_hh_l0_reverse"], 0)
    logits = fc("fc4", fwd + bwd) @ p["out.weight"].T + p["out.bias"]
    ref = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    np.testing.assert_allclose(model(x).detach().numpy(), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("frames", [800, 803, 805])
def test_conv_tasnet_shapes_batch_and_padding(frames):
    ember.manual_seed(0)
    model = models.ConvTasNet(num_sources=3, enc_kernel_size=16, enc_num_feats=32, msk_kernel_size=3,
                              msk_num_feats=16, msk_num_hidden_feats=24, msk_num_layers=3, msk_num_stacks=2).eval()
    x = ember.randn(2, 1, frames)
    out = model(x)
    assert tuple(out.shape) == (2, 3, frames)
    np.testing.assert_allclose(model(x[1:]).detach().numpy(), out[1:].detach().numpy(), rtol=1e-4, atol=1e-5)
    # torchaudio's count: the first block's kernel, then (kernel - 1) * dilation for every other block
    assert model.mask_generator.receptive_field == 3 + 2 * 2 + 2 * 4 + 2 * 1 + 2 * 2 + 2 * 4
    with pytest.raises(ValueError, match="channel==1"):
        model(ember.randn(2, 2, frames))


def test_conv_tasnet_masks_are_sigmoid_and_last_block_has_no_residual():
    model = models.ConvTasNet(num_sources=2, enc_num_feats=8, msk_num_feats=4, msk_num_hidden_feats=6,
                              msk_num_layers=2, msk_num_stacks=2)
    blocks = model.mask_generator.conv_layers
    assert [b.res_out is None for b in blocks] == [False, False, False, True]
    masks = model.mask_generator(ember.randn(3, 8, 20))
    assert tuple(masks.shape) == (3, 2, 8, 20)
    m = masks.detach().numpy()
    assert (m > 0).all() and (m < 1).all()
    sd = model.state_dict()
    assert "mask_generator.conv_layers.3.res_out.weight" not in sd
    assert "mask_generator.conv_layers.2.res_out.weight" in sd
    assert tuple(sd["decoder.weight"].shape) == (8, 1, 16) and "encoder.bias" not in sd


def test_wavernn_forward_and_upsample_shapes():
    ember.manual_seed(0)
    model = models.WaveRNN(upsample_scales=[2, 3], n_classes=16, hop_length=6, n_res_block=2, n_rnn=12, n_fc=10,
                           kernel_size=5, n_freq=8, n_hidden=8, n_output=8).eval()
    spec = ember.randn(2, 1, 8, 10)
    wave = ember.rand(2, 1, (10 - 5 + 1) * 6) * 2 - 1
    out = model(wave, spec)
    assert tuple(out.shape) == (2, 1, 36, 16)
    up, aux = model.upsample(spec[:, 0])
    assert tuple(up.shape) == (2, 8, 36) and tuple(aux.shape) == (2, 8, 36)
    with pytest.raises(ValueError, match="total_scale == hop_length"):
        models.WaveRNN(upsample_scales=[2, 3], n_classes=16, hop_length=5)
    with pytest.raises(ValueError, match="channel of waveform"):
        model(wave.repeat(1, 2, 1), spec)


def test_wavernn_stretch_repeats_frames():
    s = models.wavernn.Stretch2d(time_scale=3, freq_scale=2)
    x = ember.arange(6.0).view(1, 2, 3)
    np.testing.assert_array_equal(s(x).numpy()[0], np.repeat(np.repeat(x.numpy()[0], 2, 0), 3, 1))


def test_wavernn_infer_generates_quantised_audio():
    ember.manual_seed(0)
    model = models.WaveRNN(upsample_scales=[2, 2], n_classes=8, hop_length=4, n_res_block=1, n_rnn=8, n_fc=8,
                           kernel_size=3, n_freq=6, n_hidden=4, n_output=8).eval()
    out, lengths = model.infer(ember.randn(2, 6, 5), lengths=ember.tensor([5, 3]))
    assert tuple(out.shape) == (2, 1, 5 * 4)
    assert lengths.tolist() == [20, 12]
    levels = 2 * np.arange(8) / 7.0 - 1  # class k -> 2k / (2^bits - 1) - 1
    values = out.numpy().ravel()
    assert np.abs(values[:, None] - levels[None, :]).min(1).max() < 1e-6


def test_wavernn_infer_follows_a_deterministic_posterior():
    # make the class logits ignore everything but a huge bias on class 5: every sample is then 2*5/7 - 1
    model = models.WaveRNN(upsample_scales=[2], n_classes=8, hop_length=2, n_res_block=1, n_rnn=4, n_fc=4,
                           kernel_size=3, n_freq=3, n_hidden=4, n_output=4).eval()
    with ember.no_grad():
        model.fc3.weight.zero_()
        model.fc3.bias.fill_(-100.0)
        model.fc3.bias[5] = 100.0
    out, _ = model.infer(ember.randn(1, 3, 4))
    np.testing.assert_allclose(out.numpy(), np.full((1, 1, 8), 2 * 5 / 7 - 1), rtol=1e-6)
