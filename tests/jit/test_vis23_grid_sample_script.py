"""F.grid_sample in scripted code: every mode (bilinear, nearest, bicubic) with every padding mode (zeros, border,
reflection), align_corners both ways, gives the eager function's result (which tests/nn/test_grid_sample.py checks
against a NumPy implementation of PyTorch's formulas) and the same gradients for input and grid; bad modes raise
PyTorch's ValueError."""
import pytest

import ember
import ember.nn.functional as F

MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]


def sample(x: ember.Tensor, grid: ember.Tensor, mode: str, padding: str, align: bool) -> ember.Tensor:
    return F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align)


SCRIPTED = ember.jit.script(sample)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("mode", MODES)
def test_scripted_grid_sample_equals_eager(mode, padding, align):
    gen = ember.Generator().manual_seed(2)
    x = ember.rand(2, 3, 6, 7, generator=gen, dtype=ember.float64)
    grid = ember.rand(2, 5, 4, 2, generator=gen, dtype=ember.float64) * 3.2 - 1.6  # reaches well outside
    want = sample(x, grid, mode, padding, align)
    got = SCRIPTED(x, grid, mode, padding, align)
    ember.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    if mode == "nearest":
        return
    xs, gs = x.clone().requires_grad_(True), grid.clone().requires_grad_(True)
    xe, ge = x.clone().requires_grad_(True), grid.clone().requires_grad_(True)
    weights = ember.rand(want.shape, generator=gen, dtype=ember.float64)
    (SCRIPTED(xs, gs, mode, padding, align) * weights).sum().backward()
    (sample(xe, ge, mode, padding, align) * weights).sum().backward()
    ember.testing.assert_close(xs.grad, xe.grad, rtol=1e-10, atol=1e-12)
    ember.testing.assert_close(gs.grad, ge.grad, rtol=1e-10, atol=1e-12)


def test_scripted_grid_sample_bad_modes():
    x, grid = ember.rand(1, 1, 3, 3), ember.zeros(1, 2, 2, 2)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'area'"):
        SCRIPTED(x, grid, "area", "zeros", False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or 'reflection', but got: "
                                         "'wrap'"):
        SCRIPTED(x, grid, "bilinear", "wrap", False)
