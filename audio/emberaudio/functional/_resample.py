"""Band-limited resampling by windowed-sinc interpolation (Hann or Kaiser window), as torchaudio's
resample: the rate ratio reduced by the gcd, one polyphase kernel per output phase. Each phase's kernel is
non-zero on only about 2 * width * orig / base of its taps, so the phases are applied in blocks of
neighbours, each block a matrix product of the input's strided frames with just its taps' span."""
from __future__ import annotations

import functools
import math
import warnings
from typing import List, Optional, Tuple

import ember
from ember import Tensor

_KAISER_BETA = 14.769656459379492  # torchaudio's default: about 80 dB stop-band attenuation


def _method(resampling_method: str) -> str:
    """The method's current name (the old names warn), or ValueError."""
    current = resampling_method
    if resampling_method == "sinc_interpolation":
        current = "sinc_interp_hann"
    elif resampling_method == "kaiser_window":
        current = "sinc_interp_kaiser"
    elif resampling_method != "sinc_interp_hann" and resampling_method != "sinc_interp_kaiser":
        raise ValueError(f"Invalid resampling method: {resampling_method}")
    if current != resampling_method:
        warnings.warn(f'"{resampling_method}" resampling method name is being deprecated and replaced by '
                      f'"{current}" in the next release. The default behavior remains unchanged.', stacklevel=3)
    return current


def _sinc_resample_kernel(orig_freq, new_freq, gcd, lowpass_filter_width=6, rolloff=0.99,
                          resampling_method="sinc_interp_hann", beta=None, dtype=None):
    """(kernel (new, 1, 2 * width + orig), width) for the gcd-reduced rates."""
    kernel, width, _ = _resample_plan(orig_freq, new_freq, gcd, lowpass_filter_width, rolloff, resampling_method,
                                      beta, dtype)
    return kernel, width


def _resample_plan(orig_freq, new_freq, gcd, lowpass_filter_width=6, rolloff=0.99,
                   resampling_method="sinc_interp_hann", beta=None, dtype=None):
    """(kernel, width, phase blocks), cached: resampling many signals at one pair of rates builds them once."""
    method = _method(resampling_method)  # its deprecation warning on every call, not once per cached kernel
    return _cached_plan(orig_freq, new_freq, gcd, lowpass_filter_width, rolloff, method, beta, dtype)


@functools.lru_cache(maxsize=16)
def _cached_plan(orig_freq, new_freq, gcd, lowpass_filter_width, rolloff, method, beta, dtype):
    kernel, width = _build_kernel(orig_freq, new_freq, gcd, lowpass_filter_width, rolloff, method, beta, dtype)
    return kernel, width, _phase_blocks(kernel)


def _build_kernel(orig_freq: int, new_freq: int, gcd: int, lowpass_filter_width: int, rolloff: float, method: str,
                  beta: Optional[float], dtype: Optional[int]) -> Tuple[Tensor, int]:
    """The polyphase kernel for `method` (a current name, from _method)."""
    if not (int(orig_freq) == orig_freq and int(new_freq) == new_freq):
        raise Exception("Frequencies must be of integer type to ensure quality resampling computation. "
                        "To work around this, manually convert both frequencies to integer values "
                        "that maintain their resampling rate ratio before passing them into the function. "
                        "Example: To downsample a 44100 hz waveform by a factor of 8, use "
                        "`orig_freq=8` and `new_freq=1` instead of `orig_freq=44100` and `new_freq=5512.5`. "
                        "For more information, please refer to https://github.com/pytorch/audio/issues/1487.")
    orig = int(orig_freq) // gcd
    new = int(new_freq) // gcd
    if lowpass_filter_width <= 0:
        raise ValueError("Low pass filter width should be positive.")
    base = min(orig, new) * rolloff
    width = math.ceil(lowpass_filter_width * orig / base)
    work = dtype if dtype is not None else ember.float64
    idx = ember.arange(-width, width + orig, dtype=work)[None, None] / orig
    t = ember.arange(0, -new, -1, dtype=work)[:, None, None] / new + idx
    t = (t * base).clamp(-lowpass_filter_width, lowpass_filter_width)
    if method == "sinc_interp_hann":
        window = ember.cos(t * math.pi / lowpass_filter_width / 2) ** 2
    else:
        b = ember.scalar_tensor(float(_KAISER_BETA if beta is None else beta), dtype=work)
        window = ember.i0(b * ember.sqrt(1 - (t / lowpass_filter_width) ** 2)) / ember.i0(b)
    t = t * math.pi
    kernels = ember.where(t == 0, ember.ones_like(t), ember.sin(t) / ember.where(t == 0, ember.ones_like(t), t))
    kernels = kernels * window * (base / orig)
    return (kernels.to(ember.float32) if dtype is None else kernels), width


def _phase_blocks(kernel: Tensor) -> List[Tuple[int, int, int, int]]:
    """[(first phase, end phase, first tap, end tap)]: neighbouring phases grouped so that the taps each block
    multiplies (the union of its phases' non-zero spans) plus a per-block overhead are smallest (block sizes
    1, 2, 4, ... tried in turn; the first cheapest wins)."""
    rows = kernel.reshape(kernel.shape[0], -1)
    new = rows.shape[0]
    taps = rows.shape[1]
    mask = rows.abs() > rows.abs().max() * 1e-12
    first_tap = mask.to(ember.int32).argmax(1)
    end_tap = taps - mask.flip(1).to(ember.int32).argmax(1)
    first = [int(first_tap[p]) for p in range(new)]
    last = [int(end_tap[p]) for p in range(new)]
    overhead = 512  # a block's fixed cost in multiply-adds per frame (a matrix product call; narrow ones run slowly)
    best: List[Tuple[int, int, int, int]] = []
    best_cost = -1
    size = 1
    while True:
        spans: List[Tuple[int, int, int, int]] = []
        cost = 0
        for p0 in range(0, new, min(size, new)):
            p1 = min(p0 + size, new)
            t0 = min(first[p0:p1])
            t1 = max(last[p0:p1])
            spans.append((p0, p1, t0, t1))
            cost += (t1 - t0) * (p1 - p0) + overhead
        if best_cost < 0 or cost < best_cost:
            best = spans
            best_cost = cost
        if size >= new:
            return best
        size *= 2


def _apply_sinc_resample_kernel(waveform: Tensor, orig_freq: int, new_freq: int, gcd: int, kernel: Tensor, width: int,
                                blocks: Optional[List[Tuple[int, int, int, int]]] = None) -> Tensor:
    if not waveform.is_floating_point():
        raise TypeError(f"Expected floating point type for waveform tensor, but received {waveform.dtype}.")
    orig = int(orig_freq) // gcd
    new = int(new_freq) // gcd
    shape = waveform.shape
    flat = waveform.reshape(-1, shape[-1])
    num = flat.shape[0]
    length = flat.shape[1]
    padded = ember.nn.functional.pad(flat, (width, width + orig)).contiguous()
    rows = kernel.to(waveform.dtype).reshape(new, -1)
    taps = rows.shape[-1]
    spans = _phase_blocks(rows) if blocks is None else blocks
    # out[n, frame, phase] = padded[n, frame * orig + tap] . kernel[phase, tap], each block of phases over its
    # own span of taps: a strided view of the input times the block's kernel rows, one matrix product
    windows = (padded.shape[-1] - taps) // orig + 1
    row = padded.shape[-1]
    parts = [ember.matmul(padded.as_strided((num, windows, t1 - t0), (row, orig, 1), t0), rows[p0:p1, t0:t1].t())
             for p0, p1, t0, t1 in spans]
    out = (parts[0] if len(parts) == 1 else ember.cat(parts, -1)).reshape(num, -1)
    target = math.ceil(new * length / orig)
    out = out[..., :target]
    return out.reshape(list(shape[:-1]) + [out.shape[-1]])


def resample(waveform: Tensor, orig_freq: int, new_freq: int, lowpass_filter_width: int = 6, rolloff: float = 0.99,
             resampling_method: str = "sinc_interp_hann", beta: Optional[float] = None) -> Tensor:
    """(..., time) at orig_freq -> (..., ceil(time * new / orig)) at new_freq."""
    if orig_freq <= 0.0 or new_freq <= 0.0:
        raise ValueError("Original frequency and desired frequecy should be positive")
    if orig_freq == new_freq:
        return waveform
    gcd = math.gcd(int(orig_freq), int(new_freq))
    kernel, width, blocks = _resample_plan(orig_freq, new_freq, gcd, lowpass_filter_width, rolloff,
                                           resampling_method, beta, waveform.dtype)
    return _apply_sinc_resample_kernel(waveform, orig_freq, new_freq, gcd, kernel, width, blocks)


def _resample_script(waveform: Tensor, orig_freq: int, new_freq: int, lowpass_filter_width: int = 6,
                     rolloff: float = 0.99, resampling_method: str = "sinc_interp_hann",
                     beta: Optional[float] = None) -> Tensor:
    """resample in scripted code: the same kernel and blocks, built on each call (the eager cache is Python)."""
    if orig_freq <= 0.0 or new_freq <= 0.0:
        raise ValueError("Original frequency and desired frequecy should be positive")
    if orig_freq == new_freq:
        return waveform
    gcd = math.gcd(int(orig_freq), int(new_freq))
    method = _method(resampling_method)
    kernel, width = _build_kernel(orig_freq, new_freq, gcd, lowpass_filter_width, rolloff, method, beta,
                                  waveform.dtype)
    return _apply_sinc_resample_kernel(waveform, orig_freq, new_freq, gcd, kernel, width, _phase_blocks(kernel))


resample._ember_script_impl = _resample_script
