"""Top-level forms of Tensor methods, range, empty_permuted, index_reduce, histogramdd, low-rank SVD/PCA
and the methods fill_diagonal_, sum_to_size, new, new_empty_strided, is_nonzero (core/ember/_ops_misc.py)."""
import numpy as np
import pytest

import ember


def _arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_top_level_forms_of_methods():
    x = ember.ones(2, requires_grad=True)
    assert not ember.detach(x).requires_grad
    y = x * 2
    assert ember.detach_(y) is y and not y.requires_grad
    z = ember.ones(3)
    assert ember.zero_(z) is z and z.tolist() == [0.0] * 3
    assert ember.get_device(z) == -1
    assert ember.is_same_size(ember.ones(2, 3), ember.zeros(2, 3)) and not ember.ones(2).is_same_size(ember.ones(2, 1))
    assert ember.is_signed(ember.tensor([1])) and not ember.is_signed(ember.tensor([1], dtype=ember.uint8))
    assert not ember.is_inference(z)
    with ember.inference_mode():
        assert ember.is_inference(ember.ones(1))
    assert ember.is_distributed(z) is False and z.is_distributed() is False
    assert ember.init_num_threads() is None


def test_set_anomaly_enabled():
    ember.set_anomaly_enabled(True, False)
    try:
        assert ember.is_anomaly_enabled() and not ember.is_anomaly_check_nan_enabled()
    finally:
        ember.set_anomaly_enabled(False)
    assert not ember.is_anomaly_enabled()


def test_range_is_inclusive_and_warns():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        r = ember.range(1, 4)
    assert r.tolist() == [1.0, 2.0, 3.0, 4.0] and r.dtype == ember.float32
    with pytest.warns(UserWarning):
        np.testing.assert_allclose(ember.range(0, 1, 0.25, dtype=ember.float64).numpy(), np.linspace(0, 1, 5))
    with pytest.raises(RuntimeError, match="upper bound and larger bound inconsistent with step sign"), \
            pytest.warns(UserWarning):
        ember.range(0, 5, -1)


def test_empty_permuted_layout():
    t = ember.empty_permuted((2, 3, 4), (0, 2, 1))
    assert t.shape == (2, 3, 4) and t.stride() == (12, 1, 3)
    with pytest.raises(RuntimeError, match="len\\(size\\) = 3 is not equal to len\\(physical_layout\\) = 2"):
        ember.empty_permuted((2, 3, 4), (0, 2))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_against_a_loop(reduce, include_self):
    base = _arr(4, 2)
    src = _arr(5, 2, seed=1)
    index = [0, 0, 2, 3, 0]
    ref = base.copy()
    fns = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}
    for row in range(4):
        picked = [src[i] for i, r in enumerate(index) if r == row]
        if picked:
            vals = ([base[row]] if include_self else []) + picked
            ref[row] = fns[reduce](np.stack(vals), axis=0)
    got = ember.index_reduce(ember.tensor(base), 0, ember.tensor(index), ember.tensor(src), reduce,
                             include_self=include_self)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    t = ember.tensor(base)
    assert t.index_reduce_(0, ember.tensor(index), ember.tensor(src), reduce, include_self=include_self) is t
    np.testing.assert_allclose(t.numpy(), ref, rtol=1e-12)


def test_index_reduce_errors():
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum."):
        ember.ones(3, 2).index_reduce(0, ember.tensor([0, 1, 2]), ember.ones(3, 2), "sum")


def test_histogramdd_matches_numpy():
    pts = _arr(40, 2)
    w = np.abs(_arr(40, seed=1))
    hist, edges = ember.histogramdd(ember.tensor(pts), [3, 4], weight=ember.tensor(w))
    ref_h, ref_e = np.histogramdd(pts, [3, 4], weights=w)
    np.testing.assert_allclose(hist.numpy(), ref_h, rtol=1e-12)
    for e, r in zip(edges, ref_e):
        np.testing.assert_allclose(e.numpy(), r, rtol=1e-12)
    hist, _ = ember.histogramdd(ember.tensor(pts), 2, range=[-1.0, 1.0, -2.0, 2.0], density=True)
    np.testing.assert_allclose(hist.numpy(), np.histogramdd(pts, 2, range=[(-1, 1), (-2, 2)], density=True)[0])


def test_svd_and_pca_lowrank_recover_a_low_rank_matrix():
    ember.manual_seed(0)
    a = _arr(20, 3) @ _arr(3, 12, seed=1)
    u, s, v = ember.svd_lowrank(ember.tensor(a), q=5)
    np.testing.assert_allclose(s.numpy()[:3], np.linalg.svd(a, compute_uv=False)[:3], rtol=1e-8)
    np.testing.assert_allclose((u * s @ v.mT).numpy(), a, atol=1e-8)
    wide_u, wide_s, wide_v = ember.svd_lowrank(ember.tensor(a.T), q=4)
    np.testing.assert_allclose((wide_u * wide_s @ wide_v.mT).numpy(), a.T, atol=1e-8)
    centered = a - a.mean(0)
    u, s, v = ember.pca_lowrank(ember.tensor(a), q=3)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centered, compute_uv=False)[:3], rtol=1e-8)
    with pytest.raises(ValueError, match="must be non-negative integer and not greater than min"):
        ember.pca_lowrank(ember.tensor(a), q=50)


@pytest.mark.parametrize("shape,wrap", [((4, 3), False), ((7, 3), True), ((7, 3), False), ((3, 5), True),
                                        ((3, 3, 3), False)])
def test_fill_diagonal_matches_numpy(shape, wrap):
    ref = np.zeros(shape)
    np.fill_diagonal(ref, 5, wrap=wrap)
    t = ember.zeros(*shape)
    assert t.fill_diagonal_(5, wrap=wrap) is t
    np.testing.assert_array_equal(t.numpy(), ref)


def test_fill_diagonal_errors():
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        ember.ones(3).fill_diagonal_(2)
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        ember.ones(2, 3, 4).fill_diagonal_(2)


def test_sum_to_size_new_and_is_nonzero():
    a = _arr(2, 3, 4)
    t = ember.tensor(a)
    np.testing.assert_allclose(t.sum_to_size(3, 1).numpy(), a.sum(0).sum(1, keepdims=True))
    np.testing.assert_allclose(t.sum_to_size((1, 3, 4)).numpy(), a.sum(0, keepdims=True))
    with pytest.raises(RuntimeError, match="is not expandable to size"):
        t.sum_to_size(3, 3)
    d = ember.ones(2, dtype=ember.float64)
    assert d.new(2, 3).shape == (2, 3) and d.new(2, 3).dtype == ember.float64
    assert d.new([1, 2]).tolist() == [1.0, 2.0] and d.new([1, 2]).dtype == ember.float64
    assert d.new().shape == (0,) and d.new(ember.Size([4])).shape == (4,)
    with pytest.raises(TypeError, match="expected TensorOptions\\(dtype=double"):
        d.new(ember.tensor([1, 2]))
    s = d.new_empty_strided((2, 3), (1, 2))
    assert s.shape == (2, 3) and s.stride() == (1, 2) and s.dtype == ember.float64
    assert ember.tensor([3]).is_nonzero() and not ember.tensor(0.0).is_nonzero()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        ember.ones(2).is_nonzero()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        ember.ones(0).is_nonzero()


def test_prelu_method():
    x = ember.tensor([-2.0, 3.0])
    assert x.prelu(ember.tensor([0.25])).tolist() == [-0.5, 3.0]


def test_as_subclass_and_to_dlpack():
    class Marked(ember.Tensor):
        pass
    t = ember.ones(2, requires_grad=True)
    m = t.as_subclass(Marked)
    assert type(m) is Marked and m is not t and m.data_ptr() == t.data_ptr() and m.grad_fn is not None
    (m * 3).sum().backward()
    assert t.grad.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="Creating a Tensor subclass from a class that does not inherit from Tensor"):
        t.as_subclass(int)
    x = ember.arange(4.0)
    back = ember.from_dlpack(ember.to_dlpack(x))
    back[0] = 9.0
    assert x[0].item() == 9.0
