"""resample's blocked polyphase product: the blocks cover every phase and every non-zero tap, the result equals
the full-kernel product, and the cached kernel is shared safely."""
import math

import numpy as np
import pytest

import ember
import emberaudio.functional as F
import emberaudio.transforms as T
from emberaudio.functional._resample import _resample_plan


@pytest.mark.parametrize("orig,new,width", [(44100, 16000, 6), (48000, 44100, 16), (16000, 48000, 6), (8000, 7999, 3)])
def test_blocks_cover_all_phases_and_non_zero_taps(orig, new, width):
    g = math.gcd(orig, new)
    kernel, _, blocks = _resample_plan(orig, new, g, width, 0.99, "sinc_interp_kaiser", None, ember.float64)
    rows = kernel.reshape(new // g, -1).numpy()
    assert [b[0] for b in blocks] == sorted(b[0] for b in blocks) and blocks[0][0] == 0
    assert all(a[1] == b[0] for a, b in zip(blocks, blocks[1:])) and blocks[-1][1] == new // g
    for p0, p1, t0, t1 in blocks:
        outside = np.concatenate([rows[p0:p1, :t0], rows[p0:p1, t1:]], axis=1)
        assert np.abs(outside).max(initial=0.0) <= np.abs(rows).max() * 1e-12


def test_blocked_product_equals_the_full_kernel_convolution():
    orig, new = 48000, 44100
    g = math.gcd(orig, new)
    o, n = orig // g, new // g
    x = np.random.default_rng(0).standard_normal((2, 5000))
    kernel, width, _ = _resample_plan(orig, new, g, 6, 0.99, "sinc_interp_hann", None, ember.float64)
    rows = kernel.reshape(n, -1).numpy()
    padded = np.pad(x, ((0, 0), (width, width + o)))
    frames = np.lib.stride_tricks.sliding_window_view(padded, rows.shape[1], axis=-1)[:, ::o]
    expected = (frames @ rows.T).reshape(2, -1)[:, :math.ceil(n * 5000 / o)]
    np.testing.assert_allclose(F.resample(ember.tensor(x), orig, new).numpy(), expected, atol=1e-12)


def test_resample_module_owns_its_kernel():
    module = T.Resample(44100, 16000)
    reference = F.resample(ember.ones(1000), 44100, 16000)
    module.kernel.mul_(0)
    assert ember.equal(F.resample(ember.ones(1000), 44100, 16000), reference)
