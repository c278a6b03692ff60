"""affine_grid and grid_sample of ember.nn.functional (re-exported there), written with
differentiable ops (gradients reach both input and grid). grid_sample covers 4-D and 5-D input,
bilinear/trilinear, nearest and (4-D) bicubic, with zeros/border/reflection padding."""
from __future__ import annotations

from ..amp._policy import autocast_policy
from .. import _C
from ._arg_checks import tensor_args

__all__ = ["affine_grid", "grid_sample"]


def _base(n, align_corners, dtype):
    if n == 1:
        return _C.zeros(1, dtype=dtype)
    steps = _C.arange(n, dtype=dtype)
    if align_corners:
        return steps * (2.0 / (n - 1)) - 1
    return (steps * 2 + 1) / n - 1


@tensor_args("theta")
def affine_grid(theta, size, align_corners=False):
    """The sampling grid of an affine transform: (N, H, W, 2) for 2-D, (N, D, H, W, 3) for 3-D."""
    if not isinstance(size, (list, tuple)) or not all(isinstance(v, int) for v in size):
        raise TypeError(f"affine_grid(): argument 'size' must be a sequence of ints, not {size!r}")
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


@tensor_args("input", "grid")
@autocast_policy("fp32")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) sampled at grid (N, Ho, Wo, 2) of (x, y) in [-1, 1] -> (N, C, Ho, Wo);
    5-D input (N, C, D, H, W) at grid (N, Do, Ho, Wo, 3) of (x, y, z). bilinear (trilinear for
    5-D), nearest, and bicubic (4-D only)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    nd = input.dim() - 2
    if nd not in (2, 3) or grid.dim() != input.dim() or grid.shape[-1] != nd or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sample(): expected 4D input (N, C, H, W) with grid (N, H_out, W_out, 2), or 5D "
                           f"input (N, C, D, H, W) with grid (N, D_out, H_out, W_out, 3), with the same batch size; "
                           f"got input {list(input.shape)} and grid {list(grid.shape)}")
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have the same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    align_corners = bool(align_corners)
    n, c = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])  # (H, W) or (D, H, W); grid's last axis lists (x, y[, z]) = reversed
    out_shape = list(grid.shape[1:-1])
    spatial_numel = 1
    for k in sizes:
        spatial_numel *= k
    flat = input.reshape(n, c, spatial_numel)  # not -1: an empty batch leaves it ambiguous
    m = 1
    for k in out_shape:
        m *= k
    # unnormalized source coordinates, one per spatial dim in input order (D, H, W)
    src = [_unnormalize(grid[..., nd - 1 - d], sizes[d], align_corners) for d in range(nd)]

    def tap(idx):
        """input at integer coordinates idx (one per dim; zero outside), shape (N, C, *out_shape)."""
        inside, lin = None, None
        for d, i in enumerate(idx):
            ok = (i >= 0) & (i <= sizes[d] - 1)  # False for NaN: such taps read index 0 and count as zeros
            inside = ok if inside is None else inside & ok
            ci = _C.where(ok, i, _C.zeros_like(i))
            lin = ci if lin is None else lin * sizes[d] + ci
        lin = lin.to(_C.int64).reshape(n, 1, m).expand(n, c, m)
        vals = flat.gather(2, lin).reshape([n, c] + out_shape)
        return vals * inside.to(input.dtype).unsqueeze(1)

    if mode == "bicubic":
        return _bicubic(src, sizes, tap, padding_mode, align_corners)
    src = [_pad_coord(x, sizes[d], padding_mode, align_corners) for d, x in enumerate(src)]
    if mode == "nearest":
        return tap([_C.round(x.detach()) for x in src])
    lows = [_C.floor(x.detach()) for x in src]
    fracs = [(x - lo).unsqueeze(1) for x, lo in zip(src, lows)]
    out = None
    for corner in range(1 << nd):  # every corner of the cell: bit d set takes the upper neighbour in dim d
        idx, weight = [], None
        for d in range(nd):
            up = (corner >> (nd - 1 - d)) & 1
            idx.append(lows[d] + up)
            w = fracs[d] if up else 1 - fracs[d]
            weight = w if weight is None else weight * w
        term = tap(idx) * weight
        out = term if out is None else out + term
    return out


def _bicubic(src, sizes, tap, padding_mode, align_corners):
    """PyTorch's bicubic grid_sample: a 4x4 neighbourhood of the unpadded coordinate, each tap's
    integer coordinate padded on its own, weighted by cubic convolution in y and x."""
    from ._functional_interpolate import cubic_weights
    y, x = src
    y0, x0 = _C.floor(y.detach()), _C.floor(x.detach())
    wy, wx = cubic_weights((y - y0).unsqueeze(1)), cubic_weights((x - x0).unsqueeze(1))
    out = None
    for i in range(4):
        iy = _pad_coord(y0 + (i - 1), sizes[0], padding_mode, align_corners)
        row = None
        for j in range(4):
            ix = _pad_coord(x0 + (j - 1), sizes[1], padding_mode, align_corners)
            term = tap([iy, ix]) * wx[j]
            row = term if row is None else row + term
        out = row * wy[i] if out is None else out + row * wy[i]
    return out
