"""Reductions and scans beyond the generic op tests: PyTorch's dtype rules, out=, non-contiguous and
expanded inputs, the engine's code paths (inner, vertical, split runs) at sizes that exercise them,
float accuracy, thread-count independence, empty inputs, named tuples, and the errors for bad dims
and dtypes. References are NumPy."""
import numpy as np
import pytest

import ember


def E(a):
    return ember.tensor(np.asarray(a))


def N(t):
    return np.array(t.numpy(), copy=True)


@pytest.fixture
def rng():
    return np.random.default_rng(3)


# --- result dtypes (PyTorch's rules) -------------------------------------------------------------

@pytest.mark.parametrize("dt", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_sum_prod_cumsum_of_integers_are_int64(dt):
    x = E(np.array([[1, 0, 2], [1, 1, 0]]).astype(dt))
    for r in (ember.sum(x), x.sum(1), ember.prod(x), ember.nansum(x), ember.cumsum(x, 0), ember.cumprod(x, 1)):
        assert r.dtype == ember.int64
    assert ember.sum(x).item() == np.array([[1, 0, 2], [1, 1, 0]]).astype(dt).astype(np.int64).sum()


def test_sum_dtype_argument_casts_first():
    x = E(np.array([1.7, 2.6, -0.5], np.float32))
    r = ember.sum(x, dtype=ember.int32)
    assert r.dtype == ember.int32 and r.item() == 1 + 2 + 0  # each element truncated, then summed
    r = ember.sum(E(np.arange(6, dtype=np.int8).reshape(2, 3)), 1, dtype=ember.float64)
    assert r.dtype == ember.float64
    np.testing.assert_array_equal(N(r), [3.0, 12.0])


def test_sum_out_dtype_picks_the_computation_dtype():
    x = E(np.array([1, 2, 3], np.int32))
    out = ember.empty((), dtype=ember.float32)
    r = ember.sum(x, out=out)
    assert r is out and out.dtype == ember.float32 and out.item() == 6.0
    with pytest.raises(RuntimeError, match="dtype"):
        ember.sum(x, dtype=ember.int64, out=ember.empty((), dtype=ember.float32))


def test_mean_needs_a_float_dtype():
    x = E(np.array([1, 2, 4]))
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype. Input dtype must be"):
        ember.mean(x)
    with pytest.raises(RuntimeError, match="Optional dtype must be"):
        ember.mean(x, dtype=ember.int32)
    r = ember.mean(x, dtype=ember.float64)
    assert r.dtype == ember.float64 and r.item() == pytest.approx(7 / 3)
    with pytest.raises(RuntimeError, match="nanmean"):
        ember.nanmean(x)


def test_all_any_dtypes():
    u = E(np.array([[1, 0], [3, 4]], np.uint8))
    assert ember.all(u).dtype == ember.uint8 and ember.any(u, 1).dtype == ember.uint8
    np.testing.assert_array_equal(N(ember.all(u, 1)), [0, 1])
    f = E(np.array([[0.5, 0.0], [np.nan, 2.0]]))
    assert ember.all(f).dtype == ember.bool
    np.testing.assert_array_equal(N(ember.any(f, 0)), [True, True])
    c = E(np.array([0j, 1j]))
    assert ember.any(c).item() is True and ember.all(c).item() is False
    out = ember.empty(2, dtype=ember.uint8)
    assert ember.all(f, 1, out=out) is out and out.dtype == ember.uint8
    with pytest.raises(RuntimeError, match="Bool or UInt8"):
        ember.all(f, 1, out=ember.empty(2, dtype=ember.int32))


def test_std_var_of_complex_are_real():
    z = E(np.array([1 + 2j, 3 - 1j, -2 + 0.5j], np.complex64))
    assert ember.var(z).dtype == ember.float32
    zz = np.array([1 + 2j, 3 - 1j, -2 + 0.5j])
    assert ember.var(z).item() == pytest.approx(np.var(zz, ddof=1), rel=1e-6)
    s, m = ember.std_mean(z)
    assert s.dtype == ember.float32 and m.dtype == ember.complex64


def test_logsumexp_of_integers_is_float():
    r = ember.logsumexp(E(np.array([1, 2, 3])), 0)
    assert r.dtype == ember.float32
    assert r.item() == pytest.approx(np.log(np.exp([1, 2, 3]).sum()), rel=1e-6)


# --- shapes: dims, keepdim, negative and tuple dims, 0-D ----------------------------------------

def test_dims_and_keepdim(rng):
    a = rng.standard_normal((2, 3, 4, 5))
    x = E(a)
    for dim in [0, -1, (1, 3), (-1, 0), (0, 1, 2, 3), ()]:
        axis = None if dim == () else dim
        for keepdim in (False, True):
            np.testing.assert_allclose(N(x.sum(dim, keepdim)), a.sum(axis=axis, keepdims=keepdim), rtol=1e-12)
            np.testing.assert_allclose(N(x.amax(dim, keepdim)), a.max(axis=axis, keepdims=keepdim))
            np.testing.assert_allclose(N(ember.var(x, dim, keepdim=keepdim)),
                                       a.var(axis=axis, ddof=1, keepdims=keepdim), rtol=1e-10)


def test_zero_dim_inputs():
    x = E(np.array(2.5))
    for r in (x.sum(), x.sum(0), x.sum(-1, True), x.mean(0), x.amax(0), ember.logsumexp(x, 0)):
        assert r.shape == ()
    assert x.max(0).values.item() == 2.5 and x.max(0).indices.item() == 0
    assert x.argmax().item() == 0 and x.argmax(0, True).shape == ()
    assert ember.cumsum(x, 0).item() == 2.5 and ember.cummax(x, -1).indices.item() == 0


def test_argmax_without_dim_keepdim_keeps_every_dim(rng):
    a = rng.standard_normal((3, 4))
    r = E(a).argmax(keepdim=True)
    assert r.shape == (1, 1) and r.item() == a.argmax()


# --- non-contiguous, expanded and large inputs (every engine path) ------------------------------

@pytest.mark.parametrize("shape", [(3, 5), (64, 3000), (3000, 64), (5, 70000), (70000, 5), (40, 50, 60)])
def test_layouts_and_paths(shape, rng):
    a = rng.standard_normal(shape).astype(np.float32)
    views = {"plain": (E(a), a), "transposed": (E(a).t() if len(shape) == 2 else E(a).permute(2, 0, 1),
                                               a.T if len(shape) == 2 else a.transpose(2, 0, 1))}
    sl = tuple(slice(None, None, 2) for _ in shape)
    views["strided"] = (E(a)[sl], a[sl])
    for name, (x, ref) in views.items():
        ref64 = ref.astype(np.float64)
        for dim in [None, 0, -1, (0, -1)]:
            got = x.sum() if dim is None else x.sum(dim)
            want = ref64.sum(axis=dim)
            np.testing.assert_allclose(N(got), want, rtol=2e-5, atol=2e-3, err_msg=f"{name} {dim}")
            got = x.amax() if dim is None else x.amax(dim)
            np.testing.assert_array_equal(N(got), ref.max(axis=dim), err_msg=f"{name} {dim}")
        for dim in [0, -1]:
            v, i = x.max(dim)
            np.testing.assert_array_equal(N(i), ref.argmax(axis=dim), err_msg=name)
            np.testing.assert_array_equal(N(v), ref.max(axis=dim))
            np.testing.assert_allclose(N(x.var(dim)), ref64.var(axis=dim, ddof=1), rtol=1e-4, atol=1e-6)
            np.testing.assert_allclose(N(x.cumsum(dim)), ref64.cumsum(axis=dim), rtol=1e-4, atol=1e-3)
        assert x.argmax().item() == ref.argmax()  # the flat index in C order, whatever the layout
        assert x.argmin().item() == ref.argmin()


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_per_channel_statistics_of_batches(layout, rng):
    # dims (0, 2, 3) of (N, C, H, W): reduced, kept, reduced in memory, read in place
    a = rng.standard_normal((6, 9, 5, 7)).astype(np.float32)
    x = E(a) if layout == "nchw" else E(a.transpose(0, 2, 3, 1).copy()).permute(0, 3, 1, 2)
    a64 = a.astype(np.float64)
    dims = (0, 2, 3)
    np.testing.assert_allclose(N(x.sum(dims)), a64.sum(dims), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(N(x.mean(dims, keepdim=True)), a64.mean(dims, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(N(x.var(dims)), a64.var(dims, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(N(x.norm(2, dims)), np.sqrt((a64 ** 2).sum(dims)), rtol=1e-5)
    np.testing.assert_allclose(N(x.logsumexp(dims)), np.log(np.exp(a64).sum(dims)), rtol=1e-5)
    np.testing.assert_array_equal(N(x.amax(dims)), a.max(dims))


def test_per_channel_sums_of_many_runs_stay_accurate():
    # 32768 runs of 16 per channel: summed one after another in float, 0.1f's would drift by ~1e-3
    x = np.full((1 << 15, 8, 4, 4), 0.1, dtype=np.float32)
    got = E(x).sum((0, 2, 3))
    np.testing.assert_allclose(N(got), np.full(8, float(np.float32(0.1)) * (1 << 19)), rtol=1e-6)
    np.testing.assert_allclose(N(E(x).mean((0, 2, 3))), np.full(8, np.float32(0.1)), rtol=1e-6)


def test_expanded_input():
    a = np.arange(4.0)
    x = E(a).expand(3, 4)
    np.testing.assert_array_equal(N(x.sum(0)), 3 * a)
    np.testing.assert_array_equal(N(x.sum(1)), [6.0] * 3)
    assert x.sum().item() == 18.0
    np.testing.assert_array_equal(N(x.argmax(0)), [0, 0, 0, 0])


def test_float_sums_are_pairwise_accurate():
    n = 1 << 24
    x = ember.ones(n, dtype=ember.float32)
    assert x.sum().item() == n  # a running float32 sum stalls at 2**24
    a = np.random.default_rng(0).random(1 << 22, dtype=np.float32)
    exact = a.astype(np.float64).sum()
    assert abs(E(a).sum().item() - exact) / exact < 1e-6
    m = a.reshape(1 << 12, 1 << 10)
    np.testing.assert_allclose(N(E(m).sum(0)), m.astype(np.float64).sum(0), rtol=1e-6)
    np.testing.assert_allclose(N(E(m).sum(1)), m.astype(np.float64).sum(1), rtol=1e-6)
    h = ember.ones(10000, dtype=ember.float16)
    assert h.sum().item() == 10000  # float16 accumulates in float32
    b = ember.ones(2560, dtype=ember.bfloat16)
    assert b.sum().item() == 2560  # a running bfloat16 sum would stall at 256


def test_results_do_not_depend_on_thread_count(rng):
    a = rng.standard_normal(3_000_001).astype(np.float32)
    m = rng.standard_normal((5, 400_000)).astype(np.float32)
    w = rng.standard_normal((300_000, 3)).astype(np.float32)
    calls = [lambda: E(a).sum(), lambda: E(a).var(), lambda: E(a).argmax(), lambda: E(m).sum(1),
             lambda: E(m).mean(0), lambda: E(w).sum(0), lambda: E(w).std(0), lambda: ember.logsumexp(E(m), 1),
             lambda: ember.norm(E(a)), lambda: E(w).cumsum(0)]
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        one = [N(c()) for c in calls]
        ember.set_num_threads(2)
        two = [N(c()) for c in calls]
    finally:
        ember.set_num_threads(before)
    for x, y in zip(one, two):
        np.testing.assert_array_equal(x, y)


# --- empty inputs ---------------------------------------------------------------------------------

def test_empty_reductions():
    e = ember.empty((0,))
    assert e.sum().item() == 0 and e.prod().item() == 1
    assert np.isnan(e.mean().item()) and np.isnan(e.var().item())
    assert ember.logsumexp(e, 0).item() == -np.inf
    assert ember.all(e).item() is True and ember.any(e).item() is False
    assert ember.count_nonzero(e).item() == 0 and ember.norm(e).item() == 0
    z = ember.zeros((2, 0, 3))
    np.testing.assert_array_equal(N(z.sum(1)), np.zeros((2, 3)))
    assert z.amax(0).shape == (0, 3) and z.max(2).values.shape == (2, 0)
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified for input.numel\\(\\) == 0"):
        e.max()
    with pytest.raises(RuntimeError, match="argmax\\(\\): Expected reduction dim to be specified"):
        e.argmax()
    with pytest.raises(IndexError, match="max\\(\\): Expected reduction dim 1 to have non-zero size"):
        z.max(1)
    with pytest.raises(IndexError, match="amax\\(\\): Expected reduction dim 1 to have non-zero size"):
        z.amax((0, 1))
    with pytest.raises(IndexError, match="non-zero size"):
        z.argmin(1)
    with pytest.raises(RuntimeError, match="aminmax"):
        ember.aminmax(e)
    with pytest.raises(IndexError, match="non-zero size"):
        ember.norm(e, float("inf"))
    assert ember.cumsum(e, 0).shape == (0,) and ember.cummax(z, 1).values.shape == (2, 0, 3)


# --- NaN, ties -----------------------------------------------------------------------------------

def test_nan_propagation_and_first_index():
    x = E(np.array([1.0, np.nan, 3.0, np.nan]))
    assert np.isnan(x.max().item()) and np.isnan(x.amin().item())
    assert x.argmax().item() == 1 and x.argmin().item() == 1
    v, i = x.max(0)
    assert np.isnan(v.item()) and i.item() == 1
    lo, hi = ember.aminmax(x)
    assert np.isnan(lo.item()) and np.isnan(hi.item())
    t = E(np.array([2, 5, 5, 1, 5]))
    assert t.argmax().item() == 1 and t.max(0).indices.item() == 1 and t.argmin().item() == 3
    np.testing.assert_array_equal(N(ember.cummax(t, 0).indices), [0, 1, 2, 2, 4])  # ties move forward
    assert ember.nansum(x).item() == 4.0
    assert ember.nanmean(x).item() == 2.0


# --- named tuples, overloads, out= ---------------------------------------------------------------

def test_named_tuples_and_overloads(rng):
    a = rng.standard_normal((3, 4))
    x = E(a)
    r = ember.max(x, 1)
    assert type(r).__name__ == "max" and type(r) is ember.return_types.max
    np.testing.assert_array_equal(N(r.values), a.max(1))
    np.testing.assert_array_equal(N(r.indices), a.argmax(1))
    r = x.min(dim=0, keepdim=True)
    assert r.values.shape == (1, 4) and r.indices.dtype == ember.int64
    b = rng.standard_normal((3, 4))
    np.testing.assert_array_equal(N(ember.max(x, E(b))), np.maximum(a, b))
    np.testing.assert_array_equal(N(x.min(E(b))), np.minimum(a, b))
    lo, hi = ember.aminmax(x, dim=1)
    assert type(ember.aminmax(x)) is ember.return_types.aminmax
    np.testing.assert_array_equal(N(hi), a.max(1))
    c = ember.cummin(x, 1)
    assert type(c) is ember.return_types.cummin and c.indices.dtype == ember.int64
    np.testing.assert_array_equal(N(c.values), np.minimum.accumulate(a, 1))


def test_tuple_out(rng):
    a = rng.standard_normal((3, 4))
    x = E(a)
    v, i = ember.empty(0, dtype=ember.float64), ember.empty(0, dtype=ember.int64)
    r = ember.max(x, 1, out=(v, i))
    assert r.values is v and r.indices is i and v.shape == (3,)
    np.testing.assert_array_equal(N(i), a.argmax(1))
    with pytest.raises(RuntimeError, match="dtype"):
        ember.max(x, 1, out=(ember.empty(0, dtype=ember.float32), i))
    with pytest.raises(RuntimeError, match="dtype"):
        ember.max(x, 1, out=(v, ember.empty(0, dtype=ember.int32)))
    with pytest.raises(RuntimeError, match="Expected the dtype for input and out to match"):
        ember.amax(x, 0, out=ember.empty(0, dtype=ember.float32))
    out = ember.empty(7)
    assert ember.mean(E(a.astype(np.float32)), 0, out=out) is out and out.shape == (4,)
    o = ember.empty(0, dtype=ember.int64)
    assert ember.argmax(x, 1, out=o) is o
    cv, ci = ember.empty(0, dtype=ember.float64), ember.empty(0, dtype=ember.int64)
    ember.cummax(x, 0, out=(cv, ci))
    np.testing.assert_array_equal(N(cv), np.maximum.accumulate(a, 0))


def test_cumsum_inplace_and_dtype():
    x = E(np.array([[1, 2], [3, 4]], np.int32))
    assert x.cumsum_(0) is x and x.dtype == ember.int32
    np.testing.assert_array_equal(N(x), [[1, 2], [4, 6]])
    r = ember.cumsum(E(np.array([1, 2, 3], np.int8)), 0, dtype=ember.float32)
    assert r.dtype == ember.float32
    np.testing.assert_array_equal(N(r), [1, 3, 6])
    f = E(np.array([1.0, 2.0, 3.0]))
    assert f.cumprod_(0) is f
    np.testing.assert_array_equal(N(f), [1, 2, 6])


def test_std_var_arguments(rng):
    a = rng.standard_normal((4, 5))
    x = E(a)
    np.testing.assert_allclose(N(x.std(1, False)), a.std(1), rtol=1e-12)  # legacy positional unbiased
    np.testing.assert_allclose(N(ember.var(x, unbiased=False)), a.var(), rtol=1e-12)
    np.testing.assert_allclose(N(ember.var(x, 0, correction=3)), a.var(0, ddof=3), rtol=1e-12)
    v, m = ember.var_mean(x, (0, 1), keepdim=True)
    assert v.shape == (1, 1) and m.item() == pytest.approx(a.mean())
    with pytest.raises(RuntimeError, match="unbiased and correction"):
        ember.std(x, unbiased=True, correction=1)
    assert np.isnan(ember.var(E(np.array([1.0]))).item())
    assert ember.var(E(np.array([1.0, 3.0])), correction=2).item() == np.inf  # 2 / max(0, 2 - 2)


def test_norm_forms(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    x = E(a)
    assert ember.norm(x).item() == pytest.approx(np.linalg.norm(a), rel=1e-6)
    assert x.norm(1).item() == pytest.approx(np.abs(a).sum(), rel=1e-6)
    assert ember.norm(x, "fro", (0, 1)).item() == pytest.approx(np.linalg.norm(a), rel=1e-6)
    np.testing.assert_allclose(N(ember.norm(x, float("inf"), 1)), np.abs(a).max(1))
    np.testing.assert_allclose(
        N(ember.norm(x, dim=0, keepdim=True)), np.linalg.norm(a, axis=0, keepdims=True), rtol=1e-6
    )
    assert ember.norm(x, dtype=ember.float64).dtype == ember.float64
    with pytest.raises(NotImplementedError, match="nuc"):
        ember.norm(x, "nuc")
    with pytest.raises(RuntimeError, match="unknown norm type"):
        ember.norm(x, "bogus")
    with pytest.raises(RuntimeError, match="floating point or complex"):
        ember.norm(E(np.array([1, 2])))


def test_diff_forms():
    a = np.array([[1, 4, 9], [2, 2, 5]])
    x = E(a)
    np.testing.assert_array_equal(N(ember.diff(x)), np.diff(a))
    np.testing.assert_array_equal(N(x.diff(2, 1)), np.diff(a, 2, 1))
    np.testing.assert_array_equal(N(ember.diff(x, dim=0, prepend=E(np.array([[0, 0, 0]])))),
                                  np.diff(a, axis=0, prepend=[[0, 0, 0]]))
    b = np.array([True, False, False, True])
    np.testing.assert_array_equal(N(ember.diff(E(b))), np.diff(b))
    with pytest.raises(RuntimeError, match="at least one-dimensional"):
        ember.diff(E(np.array(1.0)))
    with pytest.raises(RuntimeError, match="order must be non-negative"):
        ember.diff(x, -1)
    with pytest.raises(RuntimeError, match="same dimension"):
        ember.diff(x, prepend=E(np.array([1, 2, 3])))


# --- bad dims and dtypes -------------------------------------------------------------------------

def test_bad_dims():
    x = ember.zeros((2, 3))
    for call in (lambda: x.sum(2), lambda: x.sum((0, -3)), lambda: x.amax(5), lambda: x.max(2),
                 lambda: x.argmax(-3), lambda: x.var(2), lambda: ember.cumsum(x, 2), lambda: ember.cummax(x, -3),
                 lambda: ember.logsumexp(x, 3), lambda: x.prod(2), lambda: ember.count_nonzero(x, 2),
                 lambda: ember.diff(x, dim=2), lambda: ember.all(x, 2), lambda: ember.norm(x, 2, 4)):
        with pytest.raises(IndexError, match="Dimension out of range"):
            call()
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        x.sum((0, 0))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        x.amax((1, -1))


def test_bad_dtypes():
    c = E(np.array([1 + 1j, 2j]))
    with pytest.raises(RuntimeError, match="complex"):
        c.amax()
    with pytest.raises(RuntimeError, match="complex"):
        c.max(0)
    with pytest.raises(RuntimeError, match="complex"):
        ember.cummax(c, 0)
    with pytest.raises(RuntimeError, match="nansum does not support complex"):
        ember.nansum(c)
    with pytest.raises(RuntimeError, match="'bool'"):
        E(np.array([True, False])).argmax()
    with pytest.raises(RuntimeError, match="std and var only support floating point and complex"):
        E(np.array([1, 2])).std()
    with pytest.raises(RuntimeError, match="logcumsumexp"):
        ember.logcumsumexp(E(np.array([1, 2])), 0)
    with pytest.raises(TypeError):
        ember.sum(ember.zeros(2), dim="x")


def test_meta_inputs():
    m = ember.empty((3, 4), device="meta")
    assert m.sum(1).is_meta and m.sum(1).shape == (3,)
    v, i = m.max(0)
    assert v.is_meta and i.dtype == ember.int64 and i.shape == (4,)
    assert ember.cumsum(m, 0).is_meta and ember.nanmean(m, 0).shape == (4,)
