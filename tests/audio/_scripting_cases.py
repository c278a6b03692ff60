"""Every emberaudio transform and model with small arguments and inputs, for the scripting tests: each case builds
the module and its inputs (from a seeded generator) so that eager, scripted and reloaded runs see the same
values. Random transforms are run under the same seed in each."""
import ember
import emberaudio.models as M
import emberaudio.transforms as T

SAMPLE_RATE = 16000


def _wave(*shape, seed=0, scale=0.3):
    g = ember.Generator().manual_seed(seed)
    return ember.randn(*shape, generator=g) * scale


def _spec(*shape, seed=1):
    return ember.rand(*shape, generator=ember.Generator().manual_seed(seed)) + 0.01


def _complex_spec(n_fft=128, seed=2):
    return ember.stft(_wave(2, 1600, seed=seed), n_fft, hop_length=n_fft // 4, window=ember.hann_window(n_fft),
                      return_complex=True)


def _rnnt_inputs():
    logits = _wave(2, 5, 4, 6, seed=3, scale=1.0)
    targets = ember.tensor([[1, 2, 3], [2, 1, 0]], dtype=ember.int32)
    return (logits, targets, ember.tensor([5, 4], dtype=ember.int32), ember.tensor([3, 2], dtype=ember.int32))


def _speech_like(seconds=1.2, seed=4):
    """A quiet start, then a loud tone burst with noise: something for Vad to find."""
    n = int(SAMPLE_RATE * seconds)
    t = ember.arange(n, dtype=ember.float32) / SAMPLE_RATE
    burst = (t > 0.5).to(ember.float32) * 0.5 * ember.sin(2 * 3.141592653589793 * 220.0 * t)
    return (burst + _wave(1, n, seed=seed, scale=0.003)).reshape(1, n)


# name -> (module factory, inputs factory); several configurations of one class get a suffix after "/"
TRANSFORMS = {
    "Spectrogram": (lambda: T.Spectrogram(n_fft=128), lambda: (_wave(2, 1600),)),
    "Spectrogram/complex": (lambda: T.Spectrogram(n_fft=128, power=None, normalized=True), lambda: (_wave(2, 1600),)),
    "Spectrogram/frame_length": (lambda: T.Spectrogram(n_fft=128, pad=3, power=1.0, normalized="frame_length"),
                                 lambda: (_wave(2, 1600),)),
    "AmplitudeToDB": (lambda: T.AmplitudeToDB(top_db=40.0), lambda: (_spec(2, 65, 30),)),
    "MelScale": (lambda: T.MelScale(n_mels=16, n_stft=65), lambda: (_spec(2, 65, 30),)),
    "MelSpectrogram": (lambda: T.MelSpectrogram(n_fft=128, n_mels=16, norm="slaney", mel_scale="slaney"),
                       lambda: (_wave(2, 1600),)),
    "MFCC": (lambda: T.MFCC(n_mfcc=8, melkwargs={"n_fft": 128, "n_mels": 16}), lambda: (_wave(2, 1600),)),
    "MFCC/log_mels": (lambda: T.MFCC(n_mfcc=8, log_mels=True, melkwargs={"n_fft": 128, "n_mels": 16}),
                      lambda: (_wave(2, 1600),)),
    "Resample": (lambda: T.Resample(SAMPLE_RATE, 12000), lambda: (_wave(2, 1600),)),
    "Resample/kaiser": (lambda: T.Resample(8000, 11025, resampling_method="sinc_interp_kaiser"),
                        lambda: (_wave(2, 800),)),
    "MuLawEncoding": (lambda: T.MuLawEncoding(), lambda: (_wave(2, 400).clamp(-1, 1),)),
    "MuLawDecoding": (lambda: T.MuLawDecoding(), lambda: (ember.randint(0, 256, (2, 400),
                                                                        generator=ember.Generator().manual_seed(5)),)),
    "ComputeDeltas": (lambda: T.ComputeDeltas(win_length=7), lambda: (_spec(2, 20, 30),)),
    "Fade": (lambda: T.Fade(100, 200, "half_sine"), lambda: (_wave(2, 1600),)),
    "Fade/logarithmic": (lambda: T.Fade(300, 50, "logarithmic"), lambda: (_wave(2, 1600),)),
    "Vol": (lambda: T.Vol(3.0, "db"), lambda: (_wave(2, 400),)),
    "Vol/power": (lambda: T.Vol(0.5, "power"), lambda: (_wave(2, 400),)),
    "FrequencyMasking": (lambda: T.FrequencyMasking(8), lambda: (_spec(3, 2, 40, 30),)),
    "TimeMasking": (lambda: T.TimeMasking(10, iid_masks=True, p=0.8), lambda: (_spec(3, 2, 40, 30),)),
    "RNNTLoss": (lambda: T.RNNTLoss(blank=0, reduction="sum"), _rnnt_inputs),
    "GriffinLim": (lambda: T.GriffinLim(n_fft=128, n_iter=4), lambda: (_spec(2, 65, 20),)),
    "InverseSpectrogram": (lambda: T.InverseSpectrogram(n_fft=128, hop_length=32, normalized=True),
                           lambda: (_complex_spec(),)),
    "InverseMelScale": (lambda: T.InverseMelScale(n_stft=65, n_mels=16), lambda: (_spec(2, 16, 20),)),
    "TimeStretch": (lambda: T.TimeStretch(hop_length=32, n_freq=65, fixed_rate=1.3), lambda: (_complex_spec(),)),
    "LFCC": (lambda: T.LFCC(n_filter=32, n_lfcc=10, speckwargs={"n_fft": 128}), lambda: (_wave(2, 1600),)),
    "SpectralCentroid": (lambda: T.SpectralCentroid(SAMPLE_RATE, n_fft=128), lambda: (_wave(2, 1600),)),
    "SlidingWindowCmn": (lambda: T.SlidingWindowCmn(cmn_window=20, min_cmn_window=5, norm_vars=True),
                         lambda: (_spec(2, 50, 13),)),
    "SlidingWindowCmn/center": (lambda: T.SlidingWindowCmn(cmn_window=20, center=True), lambda: (_spec(2, 50, 13),)),
    "Vad": (lambda: T.Vad(SAMPLE_RATE), lambda: (_speech_like(),)),
    "Loudness": (lambda: T.Loudness(SAMPLE_RATE), lambda: (_wave(2, 2, 8000),)),
    "Convolve": (lambda: T.Convolve("same"), lambda: (_wave(2, 300), _wave(2, 40, seed=6))),
    "FFTConvolve": (lambda: T.FFTConvolve("valid"), lambda: (_wave(2, 300), _wave(1, 40, seed=6))),
    "AddNoise": (lambda: T.AddNoise(), lambda: (_wave(2, 400), _wave(2, 400, seed=7), ember.tensor([10.0, 3.0]),
                                                ember.tensor([400, 300]))),
    "Preemphasis": (lambda: T.Preemphasis(0.9), lambda: (_wave(2, 400),)),
    "Deemphasis": (lambda: T.Deemphasis(0.9), lambda: (_wave(2, 400),)),
    "Speed": (lambda: T.Speed(SAMPLE_RATE, 1.1), lambda: (_wave(2, 1600), ember.tensor([1600, 1200]))),
    "SpeedPerturbation": (lambda: T.SpeedPerturbation(SAMPLE_RATE, [0.9, 1.0, 1.1]), lambda: (_wave(2, 1600),)),
    "PitchShift": (lambda: T.PitchShift(SAMPLE_RATE, 3, n_fft=256), lambda: (_wave(2, 1600),)),
}


def _wav2vec2_small(aux_num_out=None, extractor_mode="group_norm", layer_norm_first=False):
    return M.wav2vec2_model(extractor_mode=extractor_mode, extractor_conv_layer_config=[(16, 10, 5), (16, 3, 2)],
                            extractor_conv_bias=False, encoder_embed_dim=32, encoder_projection_dropout=0.0,
                            encoder_pos_conv_kernel=16, encoder_pos_conv_groups=4, encoder_num_layers=2,
                            encoder_num_heads=4, encoder_attention_dropout=0.0, encoder_ff_interm_features=48,
                            encoder_ff_interm_dropout=0.0, encoder_dropout=0.0,
                            encoder_layer_norm_first=layer_norm_first, encoder_layer_drop=0.0,
                            aux_num_out=aux_num_out)


def _eval(module):
    ember.manual_seed(0)  # the models' initial weights
    return module.eval()


MODELS = {
    "Wav2Letter": (lambda: _eval(M.Wav2Letter(num_classes=10)), lambda: (_wave(2, 1, 1600),)),
    "Wav2Letter/mfcc": (lambda: _eval(M.Wav2Letter(num_classes=10, input_type="mfcc", num_features=13)),
                        lambda: (_wave(2, 13, 40),)),
    "WaveRNN": (lambda: _eval(M.WaveRNN([2, 5], 256, 10, n_res_block=1, n_rnn=16, n_fc=16, n_freq=8, n_hidden=8,
                                        n_output=8)),
                lambda: (_wave(2, 1, 60), _spec(2, 1, 8, 10))),
    "ConvTasNet": (lambda: _eval(M.ConvTasNet(enc_num_feats=16, msk_num_feats=8, msk_num_hidden_feats=16,
                                              msk_num_layers=2, msk_num_stacks=1)),
                   lambda: (_wave(2, 1, 203),)),
    "DeepSpeech": (lambda: _eval(M.DeepSpeech(12, n_hidden=16, n_class=10)), lambda: (_wave(2, 1, 15, 12),)),
    "Wav2Vec2Model": (lambda: _eval(_wav2vec2_small(aux_num_out=10)),
                      lambda: (_wave(2, 800), ember.tensor([800, 640]))),
    "Wav2Vec2Model/layer_norm_first": (lambda: _eval(_wav2vec2_small(extractor_mode="layer_norm",
                                                                     layer_norm_first=True)),
                                       lambda: (_wave(2, 800),)),
}

# Classes torchaudio cannot script, with its reason (none: every transform and model of torchaudio 0.9-2.x
# scripts; its tests script each of them).
UNSCRIPTABLE: dict = {}
