"""emberaudio.functional: torchaudio.functional's signal processing on ember tensors (any leading
batch shape, time last)."""
from ._analysis import detect_pitch_frequency, loudness, sliding_window_cmn, spectral_centroid
from ._convolution import add_noise, convolve, deemphasis, fftconvolve, pitch_shift, preemphasis, speed
from ._effects import contrast, dcshift, dither, flanger, overdrive, phaser
from ._filters import (allpass_biquad, band_biquad, bandpass_biquad, bandreject_biquad, bass_biquad, biquad,
                       deemph_biquad, equalizer_biquad, filtfilt, highpass_biquad, lfilter, lowpass_biquad,
                       riaa_biquad, treble_biquad)
from ._phase import griffinlim, inverse_spectrogram, phase_vocoder
from ._vad import vad
from ._mel import create_dct, linear_fbanks, melscale_fbanks
from ._misc import compute_deltas, gain, mask_along_axis, mask_along_axis_iid, mu_law_decoding, mu_law_encoding
from ._resample import resample
from ._spectral import DB_to_amplitude, amplitude_to_DB, spectrogram
from .._rnnt import rnnt_loss

__all__ = ["spectrogram", "amplitude_to_DB", "DB_to_amplitude", "melscale_fbanks", "linear_fbanks", "create_dct",
           "resample", "mu_law_encoding", "mu_law_decoding", "compute_deltas", "gain", "mask_along_axis",
           "mask_along_axis_iid", "rnnt_loss", "lfilter", "filtfilt", "biquad", "allpass_biquad", "band_biquad",
           "bandpass_biquad", "bandreject_biquad", "bass_biquad", "treble_biquad", "deemph_biquad",
           "equalizer_biquad", "highpass_biquad", "lowpass_biquad", "riaa_biquad", "contrast", "dcshift",
           "overdrive", "phaser", "flanger", "dither", "griffinlim", "inverse_spectrogram", "phase_vocoder",
           "detect_pitch_frequency", "spectral_centroid", "sliding_window_cmn", "loudness", "vad", "convolve",
           "fftconvolve", "add_noise", "preemphasis", "deemphasis", "speed", "pitch_shift"]
