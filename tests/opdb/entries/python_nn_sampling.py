"""OpInfos of ember.nn.functional's resampling: interpolate in every mode (nearest, nearest-exact, linear,
bilinear, bicubic, trilinear, area) and its upsample aliases, affine_grid and grid_sample (bilinear/nearest/
bicubic, zeros/border/reflection padding, 2-d and 3-d), against references written here: interpolation as one
weight matrix per spatial axis from PyTorch's source-coordinate rules, grid sampling tap by tap."""
import itertools

import numpy as np

from ember.testing.opinfo import Sample, register

from ._nn_samples import noncontig, plain_grad_samples, r
from ._python_level import python_opinfo
from .python_nn_pooling import adaptive

LOW = ("bfloat16", "float32", "float64")
_CUBIC_A = -0.75


def _cubic_weights(t):
    """The four taps' weights (at floor-1 .. floor+2) of the cubic convolution kernel with A = -0.75."""
    def near(x):
        return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1

    def far(x):
        return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _axis_matrix(n_in, n_out, mode, align_corners, scale):
    """(n_out, n_in) weights of one axis. scale is the source step (in/out, or 1/scale_factor when given)."""
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        if mode == "nearest":
            m[o, min(int(np.floor(o * scale)), n_in - 1)] = 1
        elif mode == "nearest-exact":
            m[o, min(int(np.floor((o + 0.5) * scale)), n_in - 1)] = 1
        else:
            if align_corners:
                src = o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            else:
                src = (o + 0.5) * scale - 0.5
                if mode != "bicubic":
                    src = max(src, 0.0)
            base = int(np.floor(src))
            t = src - base
            taps = [(base, 1 - t), (base + 1, t)] if mode != "bicubic" else \
                zip(range(base - 1, base + 3), _cubic_weights(t))
            for i, w in taps:
                m[o, min(max(i, 0), n_in - 1)] += w
    return m


def _interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                 antialias=False):
    d = x.ndim - 2
    spatial = x.shape[2:]
    if size is not None:
        out = (size,) * d if isinstance(size, int) else tuple(size)
        scales = [n / o for n, o in zip(spatial, out)]
    else:
        factors = (scale_factor,) * d if not isinstance(scale_factor, (tuple, list)) else tuple(scale_factor)
        out = tuple(int(np.floor(n * f)) for n, f in zip(spatial, factors))
        scales = [n / o for n, o in zip(spatial, out)] if recompute_scale_factor else [1 / f for f in factors]
    if mode == "area":
        return adaptive(d, False)(x, out)
    base = {"linear": "linear", "bilinear": "linear", "trilinear": "linear"}.get(mode, mode)
    for axis in range(d):
        m = _axis_matrix(spatial[axis], out[axis], base, align_corners, scales[axis])
        x = np.moveaxis(np.tensordot(x, m, axes=([2 + axis], [1])), -1, 2 + axis)
    return x


def _interpolate_samples(dtype, rng):
    x1, x2, x3 = r(rng, 2, 2, 5), r(rng, 1, 2, 4, 5), r(rng, 1, 2, 3, 4, 3)
    out = []
    for mode, x in (("nearest", x2), ("nearest-exact", x2), ("linear", x1), ("bilinear", x2), ("bicubic", x2),
                    ("trilinear", x3), ("area", x2)):
        out += [Sample((x,), {"size": tuple(n + 3 for n in x.shape[2:]), "mode": mode}),
                Sample((x,), {"size": tuple(max(n - 2, 1) for n in x.shape[2:]), "mode": mode}),
                Sample((x,), {"scale_factor": 1.7, "mode": mode})]
        if mode not in ("nearest", "nearest-exact", "area"):
            out += [Sample((x,), {"size": tuple(n + 3 for n in x.shape[2:]), "mode": mode, "align_corners": True}),
                    Sample((x,), {"scale_factor": 1.7, "mode": mode, "recompute_scale_factor": True})]
    return out + [Sample((r(rng, 2, 3, 4),), {"scale_factor": 2}),
                  Sample((x2,), {"scale_factor": (2.0, 0.5), "mode": "bilinear"}),
                  Sample((noncontig(r(rng, 1, 2, 4, 5), dtype),), {"size": (6, 3), "mode": "bilinear"}),
                  Sample((np.zeros((0, 2, 3, 3)),), {"size": 5, "mode": "bicubic"})]


def _upsample_samples(dtype, rng):
    return [Sample((r(rng, 1, 2, 3, 4),), {"scale_factor": 2}), Sample((r(rng, 1, 2, 3, 4),), {"size": (5, 7)}),
            Sample((noncontig(r(rng, 1, 2, 3, 4), dtype),), {"size": 6})]


def _affine_grid(theta, size, align_corners=False):
    spatial = list(size[2:])[::-1]  # x, y (, z): the last dim first

    def base(n):
        return np.linspace(-1, 1, n) if align_corners else (2 * np.arange(n) + 1) / n - 1
    coords = list(np.meshgrid(*[base(n) for n in spatial], indexing="ij"))  # indexed (x, y, z)
    homogeneous = np.stack(coords + [np.ones_like(coords[0])], -1)
    homogeneous = np.transpose(homogeneous, tuple(range(len(spatial) - 1, -1, -1)) + (len(spatial),))  # (.., y, x, 4)
    return np.einsum("...k,nik->n...i", homogeneous, theta)


def _affine_grid_samples(dtype, rng):
    return [Sample((r(rng, 2, 2, 3), (2, 3, 4, 5))), Sample((r(rng, 2, 2, 3), (2, 1, 3, 2), True)),
            Sample((r(rng, 1, 3, 4), (1, 2, 3, 4, 2))), Sample((r(rng, 1, 3, 4), (1, 2, 2, 3, 4), True)),
            Sample((noncontig(r(rng, 2, 2, 3), dtype), (2, 1, 2, 2)))]


def _unnormalize(c, n, align_corners):
    return (c + 1) / 2 * (n - 1) if align_corners else ((c + 1) * n - 1) / 2


def _reflect(c, lo, hi):
    span = hi - lo
    if span <= 0:
        return np.zeros_like(c)
    c = np.abs(c - lo)
    flips, extra = np.floor(c / span), np.mod(c, span)
    return np.where(flips % 2 == 0, lo + extra, hi - extra)


def _pad_coord(c, n, padding_mode, align_corners):
    """A source coordinate of a dim of size n under the padding mode (zeros leaves it: taps outside read 0)."""
    if padding_mode == "border":
        return np.clip(c, 0, n - 1)
    if padding_mode == "reflection":
        return _reflect(c, 0, n - 1) if align_corners else np.clip(_reflect(c, -0.5, n - 0.5), 0, n - 1)
    return c


def _grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    align_corners = bool(align_corners)
    d = x.ndim - 2
    spatial = x.shape[2:]
    # grid[..., 0] indexes the last dim; bicubic pads each tap's index rather than the coordinate
    coords = [_unnormalize(grid[..., k], spatial[d - 1 - k], align_corners) for k in range(d)][::-1]
    if mode != "bicubic":
        coords = [_pad_coord(c, n, padding_mode, align_corners) for c, n in zip(coords, spatial)]
    if mode == "nearest":
        taps = [[(np.rint(c), np.ones_like(c))] for c in coords]
    elif mode == "bilinear":
        taps = [[(np.floor(c), 1 - (c - np.floor(c))), (np.floor(c) + 1, c - np.floor(c))] for c in coords]
    else:  # bicubic (2-d only)
        taps = [[(np.floor(c) + j - 1, w) for j, w in enumerate(_cubic_weights(c - np.floor(c)))] for c in coords]
    out = np.zeros(x.shape[:2] + grid.shape[1:-1])
    for combo in itertools.product(*taps):
        weight = np.prod([w for _, w in combo], 0)
        idx = [i.astype(np.int64) for i, _ in combo]
        if mode == "bicubic":
            idx = [_pad_coord(i, n, padding_mode, align_corners).astype(np.int64) for i, n in zip(idx, spatial)]
        inside = np.all([(i >= 0) & (i < n) for i, n in zip(idx, spatial)], 0)
        safe = [np.clip(i, 0, n - 1) for i, n in zip(idx, spatial)]
        for b in range(x.shape[0]):
            vals = x[b][(slice(None),) + tuple(s[b] for s in safe)]
            out[b] += vals * (weight[b] * inside[b])
    return out


def _grid_sample_samples(dtype, rng):
    x2, x3 = r(rng, 2, 2, 4, 5), r(rng, 1, 2, 3, 4, 3)
    out = []
    for mode, padding in itertools.product(("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection")):
        for align in (False, True):
            out.append(Sample((x2, r(rng, 2, 3, 4, 2, scale=1.3), mode, padding, align)))  # some points outside
    for mode, padding in itertools.product(("bilinear", "nearest"), ("zeros", "border", "reflection")):
        out.append(Sample((x3, r(rng, 1, 2, 3, 2, 3, scale=1.3)), {"mode": mode, "padding_mode": padding}))
    return out + [Sample((noncontig(r(rng, 1, 2, 4, 5), dtype), r(rng, 1, 3, 3, 2))),
                  Sample((np.zeros((0, 2, 3, 3)), np.zeros((0, 2, 2, 2))))]


def _grid_grad(rng):
    """bilinear and bicubic (nearest is piecewise constant in the grid), points kept away from the borders where
    reflection and clamping bend."""
    return [((r(rng, 1, 2, 4, 5), r(rng, 1, 2, 3, 2, scale=0.8), mode, padding, align), {})
            for mode in ("bilinear", "bicubic") for padding in ("zeros", "border", "reflection")
            for align in (False, True)]


def _info(name, ref, samples, dtypes=("float32", "float64"), **kw):
    return python_opinfo(f"nn.functional.{name}", ref, samples, dtypes,
                         grad_samples=kw.pop("grad_samples", plain_grad_samples(samples)), **kw)


register(
    _info("interpolate", _interpolate, _interpolate_samples, LOW, tol={"bfloat16": (3e-2, 3e-2)}),
    _info("upsample", _interpolate, lambda dtype, rng: _upsample_samples(dtype, rng) + [
        Sample((r(rng, 1, 2, 3, 4),), {"size": (5, 6), "mode": "bilinear", "align_corners": False})]),
    _info("upsample_nearest", _interpolate, _upsample_samples),
    _info("upsample_bilinear", lambda x, size=None, scale_factor=None: _interpolate(
        x, size, scale_factor, "bilinear", True), _upsample_samples),
    _info("affine_grid", _affine_grid, _affine_grid_samples, LOW),
    _info("grid_sample", _grid_sample, _grid_sample_samples, grad_samples=_grid_grad),
)
