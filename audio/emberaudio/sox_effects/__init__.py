"""emberaudio.sox_effects: torchaudio's apply_effects_tensor / apply_effects_file with SoX's effect names and
arguments, implemented natively (no libsox): the biquad filters, contrast, dcshift, overdrive, phaser,
flanger, dither, rate, speed, tempo, pitch, reverb, trim, pad, channels, remix, gain and vol."""
from ._chain import apply_effects_file, apply_effects_tensor, effect_names

__all__ = ["apply_effects_tensor", "apply_effects_file", "effect_names"]
