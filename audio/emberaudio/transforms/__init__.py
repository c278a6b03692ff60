"""emberaudio.transforms: torchaudio.transforms' modules."""
from ._effects import (AddNoise, Convolve, Deemphasis, FFTConvolve, Loudness, PitchShift, Preemphasis,
                       SlidingWindowCmn, SpectralCentroid, Speed, SpeedPerturbation, Vad)
from ._inverse import LFCC, GriffinLim, InverseMelScale, InverseSpectrogram, TimeStretch
from ._misc import (ComputeDeltas, Fade, FrequencyMasking, MuLawDecoding, MuLawEncoding, Resample, TimeMasking,
                    Vol)
from .._rnnt import RNNTLoss
from ._spectral import MFCC, AmplitudeToDB, MelScale, MelSpectrogram, Spectrogram

__all__ = ["Spectrogram", "AmplitudeToDB", "MelScale", "MelSpectrogram", "MFCC", "Resample", "MuLawEncoding",
           "MuLawDecoding", "ComputeDeltas", "Fade", "Vol", "FrequencyMasking", "TimeMasking", "RNNTLoss",
           "GriffinLim", "InverseSpectrogram", "InverseMelScale", "TimeStretch", "LFCC", "SpectralCentroid",
           "SlidingWindowCmn", "Vad", "Loudness", "Convolve", "FFTConvolve", "AddNoise", "Preemphasis", "Deemphasis",
           "Speed", "SpeedPerturbation", "PitchShift"]
