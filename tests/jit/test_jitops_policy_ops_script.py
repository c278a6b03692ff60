"""The script versions of F.affine_grid, F.cdist, F.max_unpool2d/3d, F.scaled_dot_product_attention and
ember.conv_tbc: outside autocast their results equal NumPy references, and bad input raises the eager functions'
errors. (Their autocast behaviour is in test_jitops_autocast_table.py.)"""
from typing import List

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import Tensor


def rand(*shape):
    return np.random.default_rng(sum(shape)).normal(size=shape)


@ember.jit.script
def grid(theta: Tensor, size: List[int], align_corners: bool):
    return F.affine_grid(theta, size, align_corners=align_corners)


@ember.jit.script
def distance(a: Tensor, b: Tensor, p: float):
    return F.cdist(a, b, p)


@ember.jit.script
def unpool(x: Tensor, indices: Tensor):
    return F.max_unpool2d(x, indices, 2)


@ember.jit.script
def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool):
    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


@ember.jit.script
def tbc(x: Tensor, w: Tensor, b: Tensor, pad: int):
    return ember.conv_tbc(x, w, b, pad)


@pytest.mark.parametrize("align", [False, True])
def test_affine_grid(align):
    theta = rand(2, 2, 3)
    got = grid(ember.tensor(theta), [2, 1, 3, 4], align).numpy()
    xs = np.linspace(-1, 1, 4) if align else (np.arange(4) * 2 + 1) / 4 - 1
    ys = np.linspace(-1, 1, 3) if align else (np.arange(3) * 2 + 1) / 3 - 1
    base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], np.ones((3, 4))), -1)  # (H, W, 3)
    np.testing.assert_allclose(got, np.einsum("hwk,nck->nhwc", base, theta), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="Expected a batch of 2D affine matrices of shape Nx2x3"):
        grid(ember.tensor(rand(2, 3, 3)), [2, 1, 3, 4], align)
    with pytest.raises(NotImplementedError, match="affine_grid only supports 4D and 5D sizes"):
        grid(ember.tensor(theta), [2, 3, 4], align)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
def test_cdist(p):
    a, b = rand(3, 4), rand(5, 4)
    diff = np.abs(a[:, None, :] - b[None, :, :])
    want = diff.max(-1) if np.isinf(p) else (diff ** p).sum(-1) ** (1 / p)
    np.testing.assert_allclose(distance(ember.tensor(a), ember.tensor(b), p).numpy(), want, rtol=1e-10)
    with pytest.raises(RuntimeError, match="X1 and X2 must have the same number of columns. X1: 4 X2: 3"):
        distance(ember.tensor(a), ember.tensor(rand(5, 3)), p)


def test_max_unpool2d():
    x = ember.tensor(rand(1, 2, 4, 4))
    pooled, indices = F.max_pool2d(x, 2, return_indices=True)
    got = unpool(pooled, indices).numpy()
    want = np.zeros((1, 2, 16))
    for c in range(2):
        want[0, c, indices.numpy()[0, c].ravel()] = pooled.numpy()[0, c].ravel()
    np.testing.assert_array_equal(got, want.reshape(1, 2, 4, 4))
    with pytest.raises(RuntimeError, match="elements in indices should be type int64 but got"):
        unpool(pooled, indices.to(ember.int32))
    with pytest.raises(RuntimeError, match="Found an invalid max index: 99"):
        unpool(pooled, ember.full_like(indices, 99))


@pytest.mark.parametrize("causal", [False, True])
def test_scaled_dot_product_attention(causal):
    q, k, v = rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 6)
    scores = q @ k.transpose(0, 2, 1) / 2.0
    if causal:
        scores = np.where(np.tril(np.ones((3, 5), bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    got = attention(ember.tensor(q), ember.tensor(k), ember.tensor(v), causal).numpy()
    np.testing.assert_allclose(got, weights @ v, rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="key has 5 positions, value 4"):
        attention(ember.tensor(q), ember.tensor(k), ember.tensor(rand(2, 4, 6)), causal)


def test_conv_tbc():
    x, w, b = rand(5, 2, 3), rand(2, 3, 4), rand(4)
    got = tbc(ember.tensor(x), ember.tensor(w), ember.tensor(b), 1).numpy()
    padded = np.pad(x, ((1, 1), (0, 0), (0, 0)))
    want = np.stack([sum(padded[t + j] @ w[j] for j in range(2)) + b for t in range(6)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="Input dim 2 \\(input channels\\) is not == dim 1 in the weight tensor"):
        tbc(ember.tensor(rand(5, 2, 2)), ember.tensor(w), ember.tensor(b), 0)
