"""affine_grid and grid_sample against a NumPy implementation of PyTorch's documented sampling
rules (unnormalization, zeros/border/reflection padding, bilinear, nearest and bicubic, 4-D and
5-D); gradcheck."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck

rng = np.random.default_rng(4)


def unnorm(g, size, align):
    return (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2


def reflect(x, lo2, hi2):
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    x = abs(x - lo)
    flips = np.floor(x / span)
    extra = x - flips * span
    return np.where(flips % 2 == 0, extra + lo, span - extra + lo)


def pad(x, size, padding, align):
    if padding == "border":
        return np.clip(x, 0, size - 1)
    if padding == "reflection":
        return np.clip(reflect(x, 0, 2 * (size - 1)) if align else reflect(x, -1, 2 * size - 1), 0, size - 1)
    return x


def ref_sample(img, grid, mode, padding, align):
    n, c, h, w = img.shape
    out = np.zeros((n, c) + grid.shape[1:3])
    for b in range(n):
        for i in range(grid.shape[1]):
            for j in range(grid.shape[2]):
                x = pad(unnorm(grid[b, i, j, 0], w, align), w, padding, align)
                y = pad(unnorm(grid[b, i, j, 1], h, align), h, padding, align)

                def px(ix, iy):
                    return img[b, :, iy, ix] if 0 <= ix < w and 0 <= iy < h else np.zeros(c)
                if mode == "nearest":
                    out[b, :, i, j] = px(int(np.rint(x)), int(np.rint(y)))
                    continue
                x0, y0 = int(np.floor(x)), int(np.floor(y))
                wx, wy = x - x0, y - y0
                out[b, :, i, j] = (px(x0, y0) * (1 - wx) * (1 - wy) + px(x0 + 1, y0) * wx * (1 - wy) +
                                   px(x0, y0 + 1) * (1 - wx) * wy + px(x0 + 1, y0 + 1) * wx * wy)
    return out


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample(mode, padding, align):
    img = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.4, 1.4, (2, 3, 6, 2))
    got = F.grid_sample(ember.tensor(img), ember.tensor(grid), mode, padding, align)
    np.testing.assert_allclose(got.numpy(), ref_sample(img, grid, mode, padding, align), rtol=1e-10, atol=1e-12)


def test_gradcheck_input_and_grid():
    img = ember.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    grid = ember.tensor(rng.uniform(-0.9, 0.9, (1, 2, 2, 2)), requires_grad=True)
    assert gradcheck(lambda a, g: F.grid_sample(a, g, align_corners=False), (img, grid))


def test_affine_grid():
    theta = rng.standard_normal((2, 2, 3))
    for align in (False, True):
        got = F.affine_grid(ember.tensor(theta), [2, 1, 3, 4], align_corners=align).numpy()
        xs = np.linspace(-1, 1, 4) if align else (np.arange(4) * 2 + 1) / 4 - 1
        ys = np.linspace(-1, 1, 3) if align else (np.arange(3) * 2 + 1) / 3 - 1
        base = np.stack(list(np.meshgrid(xs, ys)) + [np.ones((3, 4))], -1)
        np.testing.assert_allclose(got, np.einsum("hwk,njk->nhwj", base, theta), rtol=1e-12)
    assert tuple(F.affine_grid(ember.randn(1, 3, 4), [1, 1, 2, 3, 4]).shape) == (1, 2, 3, 4, 3)
    with pytest.raises(ValueError, match="Nx2x3"):
        F.affine_grid(ember.randn(1, 3, 3), [1, 1, 2, 2])
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D"):
        F.grid_sample(ember.randn(1, 1, 2, 2, 2), ember.randn(1, 2, 2, 2, 3), mode="bicubic")
    with pytest.raises(RuntimeError, match="grid"):
        F.grid_sample(ember.randn(1, 1, 2, 2, 2), ember.randn(1, 2, 2, 2))


def keys(t, a=-0.75):
    """The cubic convolution kernel's four weights at fraction t (Keys 1981)."""
    def k(d):
        d = abs(d)
        return ((a + 2) * d - (a + 3)) * d * d + 1 if d <= 1 else ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return [k(t + 1), k(t), k(1 - t), k(2 - t)]


def ref_bicubic(img, grid, padding, align):
    n, c, h, w = img.shape
    out = np.zeros((n, c) + grid.shape[1:3])
    for b in range(n):
        for i in range(grid.shape[1]):
            for j in range(grid.shape[2]):
                x, y = unnorm(grid[b, i, j, 0], w, align), unnorm(grid[b, i, j, 1], h, align)
                x0, y0 = np.floor(x), np.floor(y)
                wx, wy = keys(x - x0), keys(y - y0)
                for r in range(4):
                    for q in range(4):
                        iy, ix = pad(y0 - 1 + r, h, padding, align), pad(x0 - 1 + q, w, padding, align)
                        if 0 <= ix <= w - 1 and 0 <= iy <= h - 1:
                            out[b, :, i, j] += wy[r] * wx[q] * img[b, :, int(iy), int(ix)]
    return out


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_bicubic(padding, align):
    img = rng.standard_normal((2, 2, 5, 6))
    grid = rng.uniform(-1.3, 1.3, (2, 3, 4, 2))
    got = F.grid_sample(ember.tensor(img), ember.tensor(grid), "bicubic", padding, align)
    np.testing.assert_allclose(got.numpy(), ref_bicubic(img, grid, padding, align), rtol=1e-10, atol=1e-12)


def ref_sample3d(img, grid, mode, padding, align):
    n, c, d, h, w = img.shape
    out = np.zeros((n, c) + grid.shape[1:4])
    for b in range(n):
        for idx in np.ndindex(*grid.shape[1:4]):
            x, y, z = (pad(unnorm(grid[(b,) + idx][k], s, align), s, padding, align)
                       for k, s in enumerate((w, h, d)))

            def px(iz, iy, ix):
                ok = 0 <= ix < w and 0 <= iy < h and 0 <= iz < d
                return img[b, :, iz, iy, ix] if ok else np.zeros(c)
            if mode == "nearest":
                out[(b, slice(None)) + idx] = px(int(np.rint(z)), int(np.rint(y)), int(np.rint(x)))
                continue
            x0, y0, z0 = (int(np.floor(v)) for v in (x, y, z))
            acc = np.zeros(c)
            for dz in (0, 1):
                for dy in (0, 1):
                    for dx in (0, 1):
                        wgt = ((z - z0) if dz else 1 - (z - z0)) * ((y - y0) if dy else 1 - (y - y0)) * \
                              ((x - x0) if dx else 1 - (x - x0))
                        acc += wgt * px(z0 + dz, y0 + dy, x0 + dx)
            out[(b, slice(None)) + idx] = acc
    return out


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_5d(mode, padding, align):
    img = rng.standard_normal((2, 2, 3, 4, 5))
    grid = rng.uniform(-1.3, 1.3, (2, 2, 3, 2, 3))
    got = F.grid_sample(ember.tensor(img), ember.tensor(grid), mode, padding, align)
    np.testing.assert_allclose(got.numpy(), ref_sample3d(img, grid, mode, padding, align), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode,shape", [("bicubic", (1, 2, 4, 4)), ("bilinear", (1, 2, 3, 3, 3))])
def test_gradcheck_bicubic_and_5d(mode, shape):
    img = ember.tensor(rng.standard_normal(shape), requires_grad=True)
    nd = len(shape) - 2
    grid = ember.tensor(rng.uniform(-0.9, 0.9, (1,) + (2,) * nd + (nd,)), requires_grad=True)
    assert gradcheck(lambda a, g: F.grid_sample(a, g, mode, "border", False), (img, grid))
