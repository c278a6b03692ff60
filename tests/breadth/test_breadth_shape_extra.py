"""Shape and index helpers (core/ember/_ops_shape_extra.py) against NumPy and PyTorch's documented rules."""
import itertools
import warnings

import numpy as np
import pytest

import ember


def _arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_broadcasting_helpers():
    assert ember.broadcast_shapes((2, 1), (3,), 1) == (2, 3)
    assert ember.broadcast_shapes() == ()
    with pytest.raises(RuntimeError, match="Attempting to broadcast a dimension of length 4 at -2!"):
        ember.broadcast_shapes((2, 3), (4, 3))
    a, b = ember.broadcast_tensors(ember.tensor([[1], [2]]), ember.tensor([3, 4, 5]))
    np.testing.assert_array_equal(a.numpy(), np.broadcast_to([[1], [2]], (2, 3)))
    np.testing.assert_array_equal(b.numpy(), np.broadcast_to([3, 4, 5], (2, 3)))
    with pytest.raises(RuntimeError, match="must match the size"):
        ember.broadcast_tensors(ember.ones(2, 3), ember.ones(4))
    x = ember.tensor([1, 2, 3])
    assert ember.broadcast_to(x, (2, 3)).tolist() == [[1, 2, 3]] * 2 and x.broadcast_to([2, 3]).shape == (2, 3)


def test_atleast_nd_match_numpy():
    for fn, ref in ((ember.atleast_1d, np.atleast_1d), (ember.atleast_2d, np.atleast_2d),
                    (ember.atleast_3d, np.atleast_3d)):
        for shape in [(), (3,), (2, 3), (2, 3, 4)]:
            a = _arr(*shape)
            assert fn(ember.tensor(a)).shape == ref(a).shape
        pair = fn(ember.tensor(1.0), ember.tensor([1.0, 2.0]))
        assert isinstance(pair, tuple) and [p.shape for p in pair] == [ref(1.0).shape, ref([1.0, 2.0]).shape]
        assert isinstance(fn([ember.tensor(1.0)]), tuple)


def test_block_diag_matches_scipy_and_differentiates():
    import scipy.linalg
    blocks = [_arr(2, 3), _arr(1, 1, seed=1), _arr(3, seed=2)]
    got = ember.block_diag(*[ember.tensor(b) for b in blocks])
    np.testing.assert_array_equal(got.numpy(), scipy.linalg.block_diag(blocks[0], blocks[1], blocks[2][None]))
    assert ember.block_diag(ember.tensor(1), ember.tensor([1.5])).dtype == ember.float32
    with pytest.raises(RuntimeError, match="Input 0 has 3 dimensions"):
        ember.block_diag(ember.ones(1, 1, 1))
    x = ember.tensor(_arr(2, 2), requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.block_diag(t, t * 2), (x,))


def test_meshgrid_cartesian_prod_combinations():
    a, b = np.array([1, 2]), np.array([3, 4, 5])
    for indexing in ("ij", "xy"):
        got = ember.meshgrid(ember.tensor(a), ember.tensor(b), indexing=indexing)
        for g, r in zip(got, np.meshgrid(a, b, indexing=indexing)):
            np.testing.assert_array_equal(g.numpy(), r)
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        ember.meshgrid(ember.tensor(a), ember.tensor(b))
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij"'):
        ember.meshgrid(ember.tensor(a), indexing="foo")
    assert ember.cartesian_prod(ember.tensor(a), ember.tensor(b)).tolist() == [list(p) for p in
                                                                             itertools.product(a, b)]
    assert ember.cartesian_prod(ember.tensor(a)).tolist() == [1, 2]
    x = ember.tensor([1, 2, 3, 4])
    assert ember.combinations(x, 3).tolist() == [list(c) for c in itertools.combinations([1, 2, 3, 4], 3)]
    assert ember.combinations(x, 2, True).tolist() == [list(c) for c in
                                                       itertools.combinations_with_replacement([1, 2, 3, 4], 2)]
    assert ember.combinations(x, 0).shape == (0,) and ember.combinations(x, 5).shape == (0, 5)
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 2\]"):
        ember.combinations(ember.ones(2, 2))


@pytest.mark.parametrize("row,col,offset", [(3, 4, 0), (3, 4, 1), (4, 3, -1), (0, 3, 0), (5, 5, -7)])
def test_triangle_indices(row, col, offset):
    assert ember.tril_indices(row, col, offset).tolist() == [list(v) for v in np.tril_indices(row, offset, col)]
    assert ember.triu_indices(row, col, offset).tolist() == [list(v) for v in np.triu_indices(row, offset, col)]
    assert ember.tril_indices(row, col, offset).dtype == ember.int64


def test_splits_match_numpy():
    a = np.arange(24.0).reshape(2, 3, 4)
    t = ember.tensor(a)
    for sections in (3, [1, 2], [2, -1], [5]):
        for got, ref in zip(ember.tensor_split(t, sections, 2), np.array_split(a, sections, 2)):
            np.testing.assert_array_equal(got.numpy(), ref)
    parts = t.tensor_split(ember.tensor([1]), 1)
    assert [p.shape for p in parts] == [(2, 1, 4), (2, 2, 4)]
    for name in ("hsplit", "vsplit", "dsplit"):
        for got, ref in zip(getattr(ember, name)(t, 2 if name != "hsplit" else 3), getattr(np, name)(a, 2 if
                                                                                                     name != "hsplit"
                                                                                                     else 3)):
            np.testing.assert_array_equal(got.numpy(), ref)
    with pytest.raises(RuntimeError, match="torch.hsplit attempted to split along dimension 1, but the size of the "
                                           "dimension 3 is not divisible by the split_size 2!"):
        ember.hsplit(t, 2)
    with pytest.raises(RuntimeError, match="torch.dsplit requires a tensor with at least 3 dimension"):
        ember.dsplit(ember.ones(2, 2), 2)
    with pytest.raises(RuntimeError, match="number of sections must be larger than 0, got 0"):
        ember.tensor_split(t, 0)
    with pytest.raises(RuntimeError, match="to have dtype of long, but got Float"):
        ember.tensor_split(t, ember.tensor([1.5]))
    assert [p.tolist() for p in ember.unsafe_split(ember.arange(5), 2)] == [[0, 1], [2, 3], [4]]
    assert len(ember.arange(6).unsafe_chunk(3)) == 3
    assert [p.shape[0] for p in ember.unsafe_split_with_sizes(ember.arange(5), [1, 4])] == [1, 4]


@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 5])
def test_rot90_matches_numpy(k):
    a = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(ember.rot90(ember.tensor(a), k, [1, 2]).numpy(), np.rot90(a, k, (1, 2)))
    np.testing.assert_array_equal(ember.tensor(a).rot90(k, [2, 0]).numpy(), np.rot90(a, k, (2, 0)))


def test_rot90_errors():
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2, but got dims = 1"):
        ember.rot90(ember.ones(2, 2), 1, [0])
    with pytest.raises(RuntimeError, match="expected rotation dims to be different"):
        ember.rot90(ember.ones(2, 2), 1, [0, 0])


@pytest.mark.parametrize("k", [-2, 0, 1])
def test_diag_family(k):
    v = _arr(3)
    m = _arr(3, 4)
    np.testing.assert_array_equal(ember.diag(ember.tensor(v), k).numpy(), np.diag(v, k))
    np.testing.assert_array_equal(ember.tensor(m).diag(k).numpy(), np.diag(m, k))
    np.testing.assert_array_equal(ember.diagflat(ember.tensor(m), k).numpy(), np.diagflat(m, k))
    b = _arr(2, 3)
    got = ember.diag_embed(ember.tensor(b), k, 0, 2).numpy()
    ref = np.zeros((3 + abs(k), 2, 3 + abs(k)))
    for i in range(2):
        ref[:, i, :] = np.diag(b[i], k)
    np.testing.assert_array_equal(got, ref)
    with pytest.raises(RuntimeError, match="diag\\(\\): Supports 1D or 2D tensors. Got 3D"):
        ember.diag(ember.ones(2, 2, 2))
    x = ember.tensor(v, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.diag_embed(t, k), (x,))


def test_scatter_family():
    a = np.zeros((3, 4))
    src = np.arange(3.0)
    ref = a.copy()
    np.fill_diagonal(ref, src)
    np.testing.assert_array_equal(ember.diagonal_scatter(ember.tensor(a), ember.tensor(src)).numpy(), ref)
    ref = a.copy()
    ref[:, 1] = src
    np.testing.assert_array_equal(ember.select_scatter(ember.tensor(a), ember.tensor(src), 1, 1).numpy(), ref)
    ref = a.copy()
    ref[:, 0:4:2] = np.ones((3, 2))
    np.testing.assert_array_equal(ember.tensor(a).slice_scatter(ember.ones(3, 2), 1, 0, None, 2).numpy(), ref)
    ref = a.copy().ravel()
    ref[[1, 3, 5]] = [7, 8, 9]
    got = ember.as_strided_scatter(ember.tensor(a), ember.tensor([7.0, 8, 9]), [3], [2], 1)
    np.testing.assert_array_equal(got.numpy().ravel(), ref)
    with pytest.raises(RuntimeError, match=r"expected src to have a size equal to the slice of self. src size = \[2\], "
                                           r"slice size = \[3\]"):
        ember.diagonal_scatter(ember.zeros(3, 3), ember.ones(2))
    base = ember.tensor(a, requires_grad=True)
    s = ember.tensor(src, requires_grad=True)
    assert ember.autograd.gradcheck(lambda x, y: ember.select_scatter(x, y, 1, 2), (base, s))


def test_argwhere_unravel_index():
    a = np.array([[0, 1], [2, 0]])
    np.testing.assert_array_equal(ember.argwhere(ember.tensor(a)).numpy(), np.argwhere(a))
    idx = np.array([0, 5, 11, -1])
    got = ember.unravel_index(ember.tensor(idx), (3, 4))
    for g, r in zip(got, np.unravel_index(idx % 12, (3, 4))):
        np.testing.assert_array_equal(g.numpy(), r)
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype, but got ember.float32"):
        ember.unravel_index(ember.tensor([1.0]), (2, 2))
    with pytest.raises(ValueError, match="'shape' cannot have negative values, but got \\(2, -2\\)"):
        ember.unravel_index(ember.tensor(1), (2, -2))


def test_repeat_interleave_matches_numpy():
    a = np.arange(6).reshape(2, 3)
    t = ember.tensor(a)
    np.testing.assert_array_equal(ember.repeat_interleave(t, 2).numpy(), np.repeat(a, 2))
    np.testing.assert_array_equal(t.repeat_interleave(ember.tensor([1, 0, 3]), dim=1).numpy(),
                                  np.repeat(a, [1, 0, 3], axis=1))
    np.testing.assert_array_equal(ember.repeat_interleave(ember.tensor([1, 0, 2])).numpy(), [0, 2, 2])
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        ember.repeat_interleave(ember.ones(3), ember.tensor([1, -1, 2]))
    with pytest.raises(RuntimeError, match="repeats must have the same size as input along dim"):
        ember.repeat_interleave(ember.ones(3), ember.tensor([1, 2]))
    x = ember.tensor(_arr(3), requires_grad=True)
    assert ember.autograd.gradcheck(lambda v: ember.repeat_interleave(v, ember.tensor([2, 0, 1])), (x,))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.repeat_interleave(t, 1, dim=0, output_size=2)
