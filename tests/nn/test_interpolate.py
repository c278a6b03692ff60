"""interpolate / Upsample: PyTorch's documented examples (nn.Upsample's docstring) as published
vectors, a NumPy reference of the coordinate rules for other sizes, gradcheck, and the errors."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

X = ember.arange(1.0, 5.0).reshape(1, 1, 2, 2)
DOCS = {  # nn.Upsample's examples for input [[1, 2], [3, 4]], scale_factor=2
    ("nearest", None): [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]],
    ("bilinear", False): [[1.0, 1.25, 1.75, 2.0], [1.5, 1.75, 2.25, 2.5], [2.5, 2.75, 3.25, 3.5],
                          [3.0, 3.25, 3.75, 4.0]],
    ("bilinear", True): [[1.0, 1.3333, 1.6667, 2.0], [1.6667, 2.0, 2.3333, 2.6667], [2.3333, 2.6667, 3.0, 3.3333],
                         [3.0, 3.3333, 3.6667, 4.0]],
    ("bicubic", False): [[0.6836, 1.0156, 1.5625, 1.8945], [1.3477, 1.6797, 2.2266, 2.5586],
                         [2.4414, 2.7734, 3.3203, 3.6523], [3.1055, 3.4375, 3.9844, 4.3164]],
    ("bicubic", True): [[1.0, 1.3148, 1.6852, 2.0], [1.6296, 1.9444, 2.3148, 2.6296], [2.3704, 2.6852, 3.0556, 3.3704],
                        [3.0, 3.3148, 3.6852, 4.0]],
}


@pytest.mark.parametrize("mode,align", list(DOCS), ids=[f"{m}-{a}" for m, a in DOCS])
def test_pytorch_documented_examples(mode, align):
    out = nn.Upsample(scale_factor=2, mode=mode, align_corners=align)(X)
    np.testing.assert_allclose(out.numpy()[0, 0], DOCS[(mode, align)], atol=1e-4)


def ref_linear_1d(x, out_size, align, scale=None):
    """Linear resampling of the last dim by PyTorch's source-coordinate rule."""
    n = x.shape[-1]
    scale = n / out_size if scale is None else scale
    out = np.zeros(x.shape[:-1] + (out_size,))
    for o in range(out_size):
        if align:
            s = o * (n - 1) / (out_size - 1) if out_size > 1 else 0.0
        else:
            s = max((o + 0.5) * scale - 0.5, 0.0)
        i0 = min(int(np.floor(s)), n - 1)
        i1 = min(i0 + 1, n - 1)
        w = s - i0
        out[..., o] = x[..., i0] * (1 - w) + x[..., i1] * w
    return out


@pytest.mark.parametrize("align", [False, True])
def test_linear_and_trilinear_against_reference(align):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5))
    np.testing.assert_allclose(F.interpolate(ember.tensor(x), size=8, mode="linear", align_corners=align).numpy(),
                               ref_linear_1d(x, 8, align), rtol=1e-12)
    v = rng.standard_normal((1, 2, 3, 4, 5))
    want = v
    for axis, size in ((2, 6), (3, 3), (4, 7)):  # separable: one dim at a time
        want = np.moveaxis(ref_linear_1d(np.moveaxis(want, axis, -1), size, align), -1, axis)
    got = F.interpolate(ember.tensor(v), size=(6, 3, 7), mode="trilinear", align_corners=align)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_scale_factor_rules_and_area():
    x = ember.tensor(np.arange(10.0).reshape(1, 1, 10))
    # scale_factor 0.35 -> size 3, sampled with 1/0.35 unless recompute_scale_factor
    np.testing.assert_allclose(F.interpolate(x, scale_factor=0.35).numpy()[0, 0], [0, 2, 5])
    np.testing.assert_allclose(
        F.interpolate(x, scale_factor=0.35, recompute_scale_factor=True).numpy()[0, 0], [0, 3, 6]
    )
    np.testing.assert_allclose(F.interpolate(x, size=4, mode="nearest-exact").numpy()[0, 0], [1, 3, 6, 8])
    np.testing.assert_allclose(F.interpolate(x, size=5, mode="area").numpy()[0, 0], [0.5, 2.5, 4.5, 6.5, 8.5])


def test_gradcheck():
    x = ember.tensor(np.random.default_rng(1).standard_normal((1, 1, 3, 3)), requires_grad=True)
    for mode, align in (("bilinear", False), ("bicubic", True), ("nearest", None)):
        assert gradcheck(lambda t: F.interpolate(t, size=(4, 5), mode=mode, align_corners=align), (x,))


def test_errors():
    with pytest.raises(NotImplementedError, match="Got 4D input, but linear mode needs 3D input"):
        F.interpolate(X, size=3, mode="linear")
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(X, size=3, scale_factor=2)
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(X, size=3, mode="nearest", align_corners=True)
    with pytest.raises(ValueError, match="same number of spatial dimensions"):
        F.interpolate(X, size=(3, 3, 3))
