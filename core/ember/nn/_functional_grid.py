"""affine_grid and grid_sample of ember.nn.functional (re-exported there), written with
differentiable ops (gradients reach both input and grid). grid_sample covers 4-D input with
bilinear and nearest modes and zeros/border/reflection padding; 5-D input and bicubic are absent."""
from __future__ import annotations

from .. import _C

__all__ = ["affine_grid", "grid_sample"]


def _base(n, align_corners, dtype):
    if n == 1:
        return _C.zeros(1, dtype=dtype)
    steps = _C.arange(n, dtype=dtype)
    if align_corners:
        return steps * (2.0 / (n - 1)) - 1
    return (steps * 2 + 1) / n - 1


def affine_grid(theta, size, align_corners=False):
    """The sampling grid of an affine transform: (N, H, W, 2) for 2-D, (N, D, H, W, 3) for 3-D."""
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or list(theta.shape[1:]) != [2, 3]:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{list(theta.shape)}.")
        n, _, h, w = size
        xs, ys = _base(w, align_corners, theta.dtype), _base(h, align_corners, theta.dtype)
        base = _C.stack([xs.reshape(1, w).expand(h, w), ys.reshape(h, 1).expand(h, w),
                         _C.ones(h, w, dtype=theta.dtype)], -1)  # (H, W, 3)
        return _C.matmul(base.reshape(1, h * w, 3), theta.transpose(1, 2)).reshape(n, h, w, 2)
    if len(size) == 5:
        if theta.dim() != 3 or list(theta.shape[1:]) != [3, 4]:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{list(theta.shape)}.")
        n, _, d, h, w = size
        xs, ys, zs = (_base(k, align_corners, theta.dtype) for k in (w, h, d))
        base = _C.stack([xs.reshape(1, 1, w).expand(d, h, w), ys.reshape(1, h, 1).expand(d, h, w),
                         zs.reshape(d, 1, 1).expand(d, h, w), _C.ones(d, h, w, dtype=theta.dtype)], -1)
        return _C.matmul(base.reshape(1, d * h * w, 4), theta.transpose(1, 2)).reshape(n, d, h, w, 3)
    raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                              f"respectively. Got size {size}.")


def _unnormalize(g, size, align_corners):
    return (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return x * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    x = (x - low).abs()
    flips = _C.floor(x / span)
    extra = x - flips * span
    return _C.where(_C.remainder(flips, 2) == 0, extra + low, span - extra + low)


def _pad_coord(x, size, padding_mode, align_corners):
    if padding_mode == "border":
        return x.clamp(0, size - 1)
    if padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        return x.clamp(0, size - 1)
    return x


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) sampled at grid (N, Ho, Wo, 2) of (x, y) in [-1, 1] -> (N, C, Ho, Wo)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if input.dim() == 5 or mode == "bicubic":
        raise NotImplementedError("grid_sample: 5-D input and mode='bicubic' are not supported yet")
    if input.dim() != 4 or grid.dim() != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sample(): expected 4D input (N, C, H, W) and grid (N, H_out, W_out, 2) with the "
                           f"same batch size, got input {list(input.shape)} and grid {list(grid.shape)}")
    align_corners = bool(align_corners)
    n, c, h, w = input.shape
    ho, wo = grid.shape[1], grid.shape[2]
    x = _pad_coord(_unnormalize(grid[..., 0], w, align_corners), w, padding_mode, align_corners)
    y = _pad_coord(_unnormalize(grid[..., 1], h, align_corners), h, padding_mode, align_corners)
    flat = input.reshape(n, c, h * w)

    def tap(ix, iy):
        """input at integer coordinates (zero outside), shape (N, C, Ho, Wo)."""
        inside = (ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1)
        idx = (iy.clamp(0, h - 1) * w + ix.clamp(0, w - 1)).to(_C.int64).reshape(n, 1, ho * wo).expand(n, c, ho * wo)
        vals = flat.gather(2, idx).reshape(n, c, ho, wo)
        return vals * inside.to(input.dtype).unsqueeze(1)

    if mode == "nearest":
        return tap(_C.round(x.detach()), _C.round(y.detach()))
    x0, y0 = _C.floor(x.detach()), _C.floor(y.detach())
    wx, wy = (x - x0).unsqueeze(1), (y - y0).unsqueeze(1)
    return (tap(x0, y0) * (1 - wx) * (1 - wy) + tap(x0 + 1, y0) * wx * (1 - wy) +
            tap(x0, y0 + 1) * (1 - wx) * wy + tap(x0 + 1, y0 + 1) * wx * wy)
