"""emberaudio.transforms: torchaudio.transforms' modules."""
from ._misc import (ComputeDeltas, Fade, FrequencyMasking, MuLawDecoding, MuLawEncoding, Resample, TimeMasking,
                    Vol)
from .._rnnt import RNNTLoss
from ._spectral import MFCC, AmplitudeToDB, MelScale, MelSpectrogram, Spectrogram

__all__ = ["Spectrogram", "AmplitudeToDB", "MelScale", "MelSpectrogram", "MFCC", "Resample", "MuLawEncoding",
           "MuLawDecoding", "ComputeDeltas", "Fade", "Vol", "FrequencyMasking", "TimeMasking", "RNNTLoss"]
