"""The vocoder's speech and features, after torchaudio's WaveRNN pipeline: espeak-ng utterances at 16 kHz, magnitude
mel spectrograms (80 slaney mels, hop 200 = the product of the upsample scales 5 x 5 x 8) normalised in dB to
[0, 1], and 8-bit mu-law classes of the waveform as the network's input and target."""
import ember
import espeak_speech
from emberaudio import functional as AF
from emberaudio import transforms as T

RATE = 16000
HOP = 200
UPSAMPLE_SCALES = [5, 5, 8]
N_FFT, WIN = 1024, 800
N_MELS, F_MIN = 80, 40.0
N_BITS = 8
MIN_DB = -100.0
TRAIN_VOICES = ["en-us", "en-gb+f2", "en-us+m3", "en-gb-scotland+f4", "en-029+m1", "en-gb-x-rp+f3", "en-gb+m7",
                "en-us+Alicia"]
TEST_VOICES = ["en-gb-x-gbclan+f5", "en-us-nyc+m2", "en-029+Annie"]  # never trained on


def corpus_jobs(per_voice, test_per_voice, seed):
    """Training voices speak training sentences; the held-out voices speak sentences no training utterance uses."""
    return espeak_speech.split_jobs(TRAIN_VOICES, TEST_VOICES, per_voice, test_per_voice, seed)


def mel_transform():
    return T.MelSpectrogram(sample_rate=RATE, n_fft=N_FFT, win_length=WIN, hop_length=HOP, f_min=F_MIN,
                            n_mels=N_MELS, power=1.0, norm="slaney", mel_scale="slaney")


def normalize_db(mel):
    """Magnitude mel -> dB clipped to [MIN_DB, 0] and mapped to [0, 1] (torchaudio's pipeline's NormalizeDB)."""
    db = 20 * ember.log10(ember.clamp(mel, min=1e-5))
    return ember.clamp((db - MIN_DB) / -MIN_DB, 0.0, 1.0)


def denormalize_db(norm):
    """[0, 1] -> magnitude mel (the inverse of normalize_db above the floor)."""
    return ember.pow(10.0, (norm * -MIN_DB + MIN_DB) / 20)


def classes_to_unit(labels):
    """Class indices -> [-1, 1], the waveform the network reads (torchaudio's bits_to_normalized_waveform)."""
    return 2 * labels.to(ember.float32) / (2**N_BITS - 1.0) - 1.0


def unit_to_waveform(unit):
    """What WaveRNN.infer returns ([-1, 1] class values) -> the audio, through mu-law decoding."""
    labels = ember.round((unit + 1.0) * (2**N_BITS - 1.0) / 2)
    return AF.mu_law_decoding(labels, 2**N_BITS)


def utterance_features(waves):
    """{name: wave} -> {name: (normalised mel (n_mels, frames), mu-law labels (samples,))}."""
    mel = mel_transform()
    out = {}
    with ember.no_grad():
        for name, wave in waves.items():
            wave = wave / max(float(wave.abs().max()), 1e-4) * 0.95  # peak-normalised, as the pipeline's input
            out[name] = (normalize_db(mel(wave)), AF.mu_law_encoding(wave, 2**N_BITS))
    return out


def training_batch(items, size, frames, pad, rng):
    """torchaudio's collate: per item a random window of frames + 2 * pad mel frames, and the frames * HOP + 1 labels
    that the middle `frames` cover (mel frame t is centred on sample t * HOP). Returns (mels (B, 1, n_mels, F),
    input waveform (B, 1, frames * HOP), target classes (B, frames * HOP))."""
    mels, labels = [], []
    for mel, lab in (items[rng.randrange(len(items))] for _ in range(size)):
        offset = rng.randint(0, mel.shape[1] - frames - 2 * pad)
        mels.append(mel[:, offset:offset + frames + 2 * pad])
        start = (offset + pad) * HOP
        labels.append(lab[start:start + frames * HOP + 1])
    mels, labels = ember.stack(mels).unsqueeze(1), ember.stack(labels)
    return mels, classes_to_unit(labels[:, :-1]).unsqueeze(1), labels[:, 1:]


def log_mel_distance_db(reference_norm, mel_norm, top_db=None):
    """Mean absolute difference in dB between two normalised mels (both floored at MIN_DB). With `top_db`, both are
    first raised to (the reference's peak - top_db): differences far below the loudest bin (8-bit mu-law's
    quantisation noise in pauses, say) then do not count."""
    if top_db is not None:
        floor = float(reference_norm.max()) - top_db / -MIN_DB
        reference_norm, mel_norm = reference_norm.clamp(min=floor), mel_norm.clamp(min=floor)
    return float((reference_norm - mel_norm).abs().mean()) * -MIN_DB
