"""unfold against NumPy sliding windows, fold as its adjoint, max_unpool, lp_pool and
embedding_bag against NumPy; gradcheck; errors."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck

rng = np.random.default_rng(9)


def ref_unfold(x, k, d, p, s):
    n, c, h, w = x.shape
    xp = np.pad(x, [(0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])])
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c * k[0] * k[1], oh * ow))
    for ch in range(c):
        for i in range(k[0]):
            for j in range(k[1]):
                row = (ch * k[0] + i) * k[1] + j
                in_rows = slice(i * d[0], i * d[0] + s[0] * (oh - 1) + 1, s[0])
                in_cols = slice(j * d[1], j * d[1] + s[1] * (ow - 1) + 1, s[1])
                patch = xp[:, ch, in_rows, in_cols]
                out[:, row] = patch.reshape(n, -1)
    return out


@pytest.mark.parametrize("k,d,p,s", [((2, 3), (1, 1), (1, 0), (2, 1)), ((3, 3), (2, 1), (1, 1), (1, 2))])
def test_unfold_and_fold(k, d, p, s):
    x = rng.standard_normal((2, 3, 7, 6))
    cols = F.unfold(ember.tensor(x), k, d, p, s)
    np.testing.assert_allclose(cols.numpy(), ref_unfold(x, k, d, p, s), rtol=1e-12)
    c = rng.standard_normal(cols.shape)
    y = F.fold(ember.tensor(c), (7, 6), k, d, p, s)
    # fold is unfold's adjoint: <fold(c), x> = <c, unfold(x)>
    assert np.isclose(np.sum(y.numpy() * x), np.sum(c * cols.numpy()))
    assert gradcheck(lambda t: F.unfold(t, k, d, p, s), (ember.tensor(x[:1, :1], requires_grad=True),))


def test_max_unpool_round_trip():
    x = ember.tensor(rng.standard_normal((1, 2, 4, 4)))
    v, i = F.max_pool2d(x, 2, return_indices=True)
    u = nn.MaxUnpool2d(2)(v, i).numpy()
    xs = x.numpy()
    for c in range(2):
        for a in range(2):
            for b in range(2):
                block = xs[0, c, 2 * a:2 * a + 2, 2 * b:2 * b + 2]
                ublock = u[0, c, 2 * a:2 * a + 2, 2 * b:2 * b + 2]
                assert ublock.max() == block.max() and np.count_nonzero(ublock) == 1
    with pytest.raises(RuntimeError, match="Found an invalid max index"):
        F.max_unpool2d(v, i + 100, 2)


def test_lp_pool():
    x = np.abs(rng.standard_normal((1, 2, 4, 6))) + 0.1
    got = nn.LPPool2d(3, (2, 3))(ember.tensor(x)).numpy()
    want = (x.reshape(1, 2, 2, 2, 2, 3) ** 3).sum(axis=(3, 5)) ** (1 / 3)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    w = rng.standard_normal((10, 3))
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = np.array([0, 4, 4])  # the middle bag is empty
    f = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode]
    want = np.stack([f(w[idx[0:4]], 0), np.zeros(3), f(w[idx[4:]], 0)])
    got = F.embedding_bag(ember.tensor(idx), ember.tensor(w), ember.tensor(offsets), mode=mode)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    got2d = F.embedding_bag(ember.tensor(idx.reshape(2, 4)), ember.tensor(w), mode=mode)
    np.testing.assert_allclose(got2d.numpy(), np.stack([f(w[idx[:4]], 0), f(w[idx[4:]], 0)]), rtol=1e-12)
    wt = ember.tensor(w, requires_grad=True)
    assert gradcheck(lambda t: F.embedding_bag(ember.tensor(idx), t, ember.tensor(offsets), mode=mode), (wt,))


def test_embedding_bag_weights_and_errors():
    w = rng.standard_normal((5, 2))
    idx, psw = np.array([0, 3, 3, 1]), np.array([0.5, 2.0, 1.0, -1.0])
    got = F.embedding_bag(ember.tensor(idx), ember.tensor(w), ember.tensor([0, 2]), mode="sum",
                          per_sample_weights=ember.tensor(psw))
    want = np.stack([0.5 * w[0] + 2 * w[3], w[3] - w[1]])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        F.embedding_bag(ember.tensor(idx), ember.tensor(w), ember.tensor([0, 2]), per_sample_weights=ember.tensor(psw))
    with pytest.raises(ValueError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(ember.tensor(idx), ember.tensor(w), ember.tensor([1, 2]))
    with pytest.raises(IndexError, match="out of range"):
        F.embedding_bag(ember.tensor([7]), ember.tensor(w), ember.tensor([0]))
