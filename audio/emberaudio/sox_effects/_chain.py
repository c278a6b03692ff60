"""Runs a chain of SoX effects, each [name, arg, ...], on a (channels, time) float32 signal: the output of one
is the next one's input, sample rate included (speed and pitch change it, rate resamples)."""
from __future__ import annotations

import ember

from .._io import load
from ._args import Args
from ._edit_effects import EDIT_EFFECTS
from ._filter_effects import FILTER_EFFECTS
from ._rate_effects import RATE_EFFECTS

_EFFECTS = {**FILTER_EFFECTS, **EDIT_EFFECTS, **RATE_EFFECTS}
# integer samples -> [-1, 1): SoX's scaling of each integer type
_INT_SCALE = {ember.int16: 2 ** 15, ember.int32: 2 ** 31, ember.uint8: 2 ** 7}


def effect_names():
    """The effect names apply_effects_tensor accepts."""
    return sorted(_EFFECTS)


def _as_float(tensor):
    if tensor.dtype == ember.uint8:
        return (tensor.to(ember.float32) - 128) / 128
    if tensor.dtype in _INT_SCALE:
        return tensor.to(ember.float32) / _INT_SCALE[tensor.dtype]
    if tensor.dtype in (ember.float32, ember.float64):
        return tensor.to(ember.float32)
    raise TypeError(f"apply_effects_tensor: unsupported dtype {tensor.dtype} (float32, float64, int32, int16 or "
                    "uint8 expected)")


def _run(waveform, sample_rate, effects):
    rate = float(sample_rate)
    for effect in effects:
        if isinstance(effect, str) or not effect:
            raise ValueError(f"each effect must be a non-empty list [name, arg, ...], got {effect!r}")
        name = str(effect[0])
        if name not in _EFFECTS:
            raise RuntimeError(f"Unsupported effect: {name}")
        waveform, rate = _EFFECTS[name](waveform, rate, Args(name, effect[1:]))
    waveform = waveform.clamp(-1, 1)  # SoX clips every sample it hands on
    return waveform, int(rate) if rate == int(rate) else int(rate + 0.5)


def apply_effects_tensor(tensor, sample_rate, effects, channels_first=True):
    """(channels, time) (or (time, channels) with channels_first=False) through `effects`
    -> (float32 tensor in the same layout, output sample rate)."""
    if not isinstance(tensor, ember.Tensor):
        raise TypeError(f"apply_effects_tensor: tensor must be a Tensor, got {type(tensor).__name__}")
    if tensor.dim() != 2:
        raise ValueError(f"apply_effects_tensor: expected a 2D tensor, got {tensor.dim()}D")
    if sample_rate <= 0:
        raise ValueError(f"apply_effects_tensor: sample_rate must be positive, got {sample_rate}")
    waveform = _as_float(tensor if channels_first else tensor.t())
    out, rate = _run(waveform.contiguous(), sample_rate, effects)
    return (out if channels_first else out.t()), rate


_PCM_DTYPE = {"PCM_16": (ember.int16, 2 ** 15), "PCM_32": (ember.int32, 2 ** 31), "PCM_24": (ember.int32, 2 ** 31),
              "PCM_U8": (ember.uint8, None)}


def apply_effects_file(path, effects, normalize=True, channels_first=True, format=None):
    """Loads `path` (any format emberaudio.load reads) and applies `effects`. normalize=False returns integer
    PCM files' results in the file's integer type (24-bit in int32), as torchaudio does."""
    waveform, sample_rate = load(path, normalize=True, channels_first=True, format=format)
    out, rate = _run(waveform, sample_rate, effects)
    if not normalize:
        import soundfile  # the file's sample type decides the integer type

        subtype = soundfile.info(path).subtype if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__") \
            else None
        if subtype in _PCM_DTYPE:
            dtype, scale = _PCM_DTYPE[subtype]
            if scale is None:
                out = (out * 128 + 128).round().clamp(0, 255).to(dtype)
            else:
                out = (out * scale).round().clamp(-scale, scale - 1).to(dtype)
    return (out if channels_first else out.t()), rate
