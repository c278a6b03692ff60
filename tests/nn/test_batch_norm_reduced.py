"""batch_norm of bfloat16/float16 input (what autocast's networks run): native_batch_norm computes it
in float32 and rounds the output once, with statistics (and parameter gradients) in float32 beside
float32 parameters and in the input's dtype otherwise, as PyTorch's mixed-type rule. Checked against
NumPy in float64 from the exact 16-bit values; the three gradients of one node come from one pass."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F

RNG = np.random.default_rng(20)
EPS = 1e-5
REDUCED = [ember.bfloat16, ember.float16]
# half an ulp of the 16-bit result (8 or 11 significant bits) plus float32 slack
RTOL = {ember.bfloat16: 2.0**-8, ember.float16: 2.0**-11}


def exact(t):
    return t.float().numpy().astype(np.float64)


def reduced_values(shape, dtype, scale=1.0, shift=0.0):
    t = ember.tensor((RNG.standard_normal(shape) * scale + shift).astype(np.float32)).to(dtype)
    return t, exact(t)


def close(got, ref, rtol, atol):
    g = exact(got)
    assert g.shape == ref.shape
    err = np.abs(g - ref)
    bound = rtol * np.abs(ref) + atol
    assert np.all(err <= bound), f"max error {err.max()} where the bound is {bound.flat[np.argmax(err - bound)]}"


def ref_forward(x, w, b):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = [1, -1] + [1] * (x.ndim - 2)
    mean, var = x.mean(axis=axes), x.var(axis=axes)
    invstd = 1.0 / np.sqrt(var + EPS)
    y = (x - mean.reshape(shape)) * invstd.reshape(shape) * w.reshape(shape) + b.reshape(shape)
    return y, mean, var, invstd


def ref_backward(g, x, w):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = [1, -1] + [1] * (x.ndim - 2)
    _, mean, _, invstd = ref_forward(x, w, np.zeros_like(w))
    xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    mg, mgx = g.mean(axis=axes), (g * xhat).mean(axis=axes)
    gi = (w * invstd).reshape(shape) * (g - mg.reshape(shape) - xhat * mgx.reshape(shape))
    return gi, (g * xhat).sum(axis=axes), g.sum(axis=axes)


@pytest.mark.parametrize("dtype", REDUCED)
def test_float32_parameters_give_float32_statistics(dtype):
    x, xn = reduced_values((4, 3, 5, 6), dtype, scale=2.0, shift=0.5)
    w = ember.tensor(RNG.uniform(0.5, 1.5, 3).astype(np.float32))
    b = ember.tensor(RNG.uniform(-1, 1, 3).astype(np.float32))
    rm, rv = ember.zeros(3), ember.ones(3)
    y, save_mean, save_invstd = ember.native_batch_norm(x, w, b, rm, rv, True, 0.1, EPS)
    assert (y.dtype, save_mean.dtype, save_invstd.dtype) == (dtype, ember.float32, ember.float32)
    ref, mean, var, invstd = ref_forward(xn, exact(w), exact(b))
    close(y, ref, RTOL[dtype], 1e-5)
    close(save_mean, mean, 1e-6, 1e-6)
    close(save_invstd, invstd, 1e-6, 1e-6)
    n = xn.size // 3
    close(rm, 0.1 * mean, 1e-6, 1e-7)
    close(rv, 0.9 + 0.1 * var * n / (n - 1), 1e-6, 1e-7)


@pytest.mark.parametrize("dtype", REDUCED)
def test_parameters_of_the_input_dtype_give_its_statistics(dtype):
    x, xn = reduced_values((2, 4, 3, 3), dtype)
    w, wn = reduced_values((4,), dtype, scale=0.3, shift=1.0)
    rm, rv = ember.zeros(4, dtype=dtype), ember.ones(4, dtype=dtype)
    y, save_mean, save_invstd = ember.native_batch_norm(x, w, None, rm, rv, True, 0.1, EPS)
    assert (y.dtype, save_mean.dtype, save_invstd.dtype) == (dtype, dtype, dtype)
    ref, mean, var, invstd = ref_forward(xn, wn, np.zeros(4))
    close(y, ref, RTOL[dtype], 1e-5)
    close(save_mean, mean, RTOL[dtype], 1e-6)
    close(save_invstd, invstd, RTOL[dtype], 1e-6)
    n = xn.size // 4
    close(rv, 0.9 + 0.1 * var * n / (n - 1), RTOL[dtype], 1e-6)  # the 16-bit buffers updated in place
    # no parameters at all: the input's dtype too
    assert ember.native_batch_norm(x, None, None, None, None, True, 0.1, EPS)[1].dtype == dtype


@pytest.mark.parametrize("dtype", REDUCED)
def test_evaluation_uses_the_running_statistics(dtype):
    x, xn = reduced_values((3, 2, 4, 4), dtype)
    rm = ember.tensor(np.array([0.25, -0.5], dtype=np.float32))
    rv = ember.tensor(np.array([2.0, 0.5], dtype=np.float32))
    y = F.batch_norm(x, rm, rv, training=False)
    ref = (xn - exact(rm).reshape(1, 2, 1, 1)) / np.sqrt(exact(rv).reshape(1, 2, 1, 1) + EPS)
    assert y.dtype == dtype
    close(y, ref, RTOL[dtype], 1e-5)


@pytest.mark.parametrize("dtype", REDUCED)
def test_gradients_against_numpy(dtype):
    x, xn = reduced_values((4, 3, 5, 5), dtype, scale=1.5)
    w = ember.tensor(RNG.uniform(0.5, 1.5, 3).astype(np.float32)).requires_grad_(True)
    b = ember.tensor(RNG.uniform(-1, 1, 3).astype(np.float32)).requires_grad_(True)
    x.requires_grad_(True)
    y = F.batch_norm(x, ember.zeros(3), ember.ones(3), w, b, training=True)
    g, gn = reduced_values(tuple(y.shape), dtype)
    y.backward(g)
    gi, gw, gb = ref_backward(gn, xn, exact(w.detach()))
    assert (x.grad.dtype, w.grad.dtype, b.grad.dtype) == (dtype, ember.float32, ember.float32)
    close(x.grad, gi, RTOL[dtype], 1e-4)
    close(w.grad, gw, 1e-5, 1e-4)
    close(b.grad, gb, 1e-5, 1e-4)


def test_channels_last_matches_contiguous():
    x, xn = reduced_values((2, 8, 4, 5), ember.bfloat16)
    w = ember.tensor(RNG.uniform(0.5, 1.5, 8).astype(np.float32))
    xc = x.to(memory_format=ember.channels_last).requires_grad_(True)
    y = F.batch_norm(xc, None, None, w, None, training=True)
    assert y.is_contiguous(memory_format=ember.channels_last)
    close(y, ref_forward(xn, exact(w), np.zeros(8))[0], RTOL[ember.bfloat16], 1e-5)
    g, gn = reduced_values(tuple(y.shape), ember.bfloat16)
    y.backward(g)
    close(xc.grad, ref_backward(gn, xn, exact(w))[0], RTOL[ember.bfloat16], 1e-4)


def test_each_node_gets_its_own_gradients():
    # two batch norms in a row, parameters of one frozen: the one pass per node serves that node only
    # (float32, where the reference is exact enough to tell the nodes' gradients apart)
    xn = RNG.standard_normal((3, 2, 4, 4)) * 2.0
    x = ember.tensor(xn.astype(np.float32)).requires_grad_(True)
    xn = exact(x.detach())
    w1 = ember.tensor(np.array([1.5, 0.5], dtype=np.float32)).requires_grad_(True)
    b1 = ember.tensor(np.array([0.1, -0.2], dtype=np.float32)).requires_grad_(True)
    w2 = ember.tensor(np.array([0.75, 2.0], dtype=np.float32))  # frozen
    b2 = ember.tensor(np.array([0.3, 0.0], dtype=np.float32)).requires_grad_(True)
    h = F.batch_norm(x, None, None, w1, b1, training=True)
    y = F.batch_norm(h * h, None, None, w2, b2, training=True)
    gn = RNG.standard_normal(tuple(y.shape))
    y.backward(ember.tensor(gn.astype(np.float32)))
    gn = gn.astype(np.float32).astype(np.float64)
    hn = ref_forward(xn, exact(w1.detach()), exact(b1.detach()))[0]
    gh2, _, gb2 = ref_backward(gn, hn * hn, exact(w2))
    gi, gw1, gb1 = ref_backward(gh2 * 2 * hn, xn, exact(w1.detach()))
    close(b2.grad, gb2, 1e-4, 1e-4)
    close(w1.grad, gw1, 1e-4, 1e-4)
    close(b1.grad, gb1, 1e-4, 1e-4)
    close(x.grad, gi, 1e-4, 1e-4)
    assert w2.grad is None


def test_mixed_parameter_dtypes_still_compute():
    # bf16 weight beside float32 running statistics: not PyTorch's mixed type, so the composite form
    x, xn = reduced_values((2, 3, 4, 4), ember.bfloat16)
    w, wn = reduced_values((3,), ember.bfloat16, scale=0.2, shift=1.0)
    y = F.batch_norm(x, ember.zeros(3), ember.ones(3), w, None, training=True)
    assert y.dtype == ember.bfloat16
    close(y, ref_forward(xn, wn, np.zeros(3))[0], 2.0**-6, 1e-2)
