"""ember.nn.functional's pixel_shuffle and pixel_unshuffle (re-exported there): sub-pixel
rearrangements of channels into space and back."""
from __future__ import annotations

from ._arg_checks import check_int, tensor_args

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


@tensor_args("input")
def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = upscale_factor
    if check_int("pixel_shuffle", "upscale_factor", r) <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if input.dim() < 3 or input.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={input.shape[-3] if input.dim() >= 3 else 0} is not "
                           f"divisible by {r * r}")
    *lead, c, h, w = input.shape
    x = input.reshape(lead + [c // (r * r), r, r, h, w])
    n = len(lead)
    x = x.permute(list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    return x.reshape(lead + [c // (r * r), h * r, w * r])


@tensor_args("input")
def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    r = downscale_factor
    if check_int("pixel_unshuffle", "downscale_factor", r) <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    if input.dim() < 3 or input.shape[-1] % r or input.shape[-2] % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor {r}, got "
                           f"{list(input.shape)}")
    *lead, c, h, w = input.shape
    x = input.reshape(lead + [c, h // r, r, w // r, r])
    n = len(lead)
    x = x.permute(list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    return x.reshape(lead + [c * r * r, h // r, w // r])
