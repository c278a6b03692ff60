"""Indexing an empty dim with an index that cannot exist is an IndexError even when the result would
be empty, as PyTorch; uint8 masks follow PyTorch 2.13 (reads and tensor writes still work as bool masks
with a deprecation warning; a number written through one goes to masked_fill_, which refuses it).
The messages are PyTorch's, written out here."""
import warnings

import numpy as np
import pytest

import ember

# PyTorch says "index is out of bounds for dimension with size 0"; ember names the index and the dim too.
EMPTY_DIM = r"out of bounds for dimension \d+ with size 0"


@pytest.mark.parametrize("index", [
    lambda t: t[ember.tensor([5])],
    lambda t: t[[5]],
    lambda t: t[ember.tensor([0])],          # 0 is out of range too: the dim is empty
    lambda t: t[ember.tensor([5], dtype=ember.int32)],
    lambda t: t[[0], [1]],
])
def test_reading_an_empty_dim_with_an_index_raises(index):
    with pytest.raises(IndexError, match=EMPTY_DIM):
        index(ember.zeros(0, 3))


def test_the_empty_dim_is_checked_wherever_it_is():
    with pytest.raises(IndexError, match=EMPTY_DIM):
        ember.zeros(2, 0, 3)[:, [1]]
    with pytest.raises(IndexError, match=EMPTY_DIM):
        ember.zeros(2, 0)[[1], [0]]
    with pytest.raises(IndexError, match=EMPTY_DIM):
        ember.zeros(0)[[5]]


def test_an_empty_index_or_a_non_empty_dim_gives_an_empty_result():
    # PyTorch's rule: only an indexed dim of size 0 is checked when nothing is read.
    assert ember.zeros(0, 3)[ember.tensor([], dtype=ember.int64)].shape == (0, 3)
    assert ember.zeros(0, 3)[ember.zeros(0, dtype=ember.bool)].shape == (0, 3)
    assert ember.zeros(0, 3)[:, [2]].shape == (0, 1)
    assert ember.zeros(2, 0)[[1]].shape == (1, 0)


def test_writing_an_empty_dim_with_an_index_raises():
    t = ember.zeros(0, 3)
    with pytest.raises(IndexError, match=EMPTY_DIM):
        t[[5]] = ember.tensor(1.)
    with pytest.raises(IndexError, match=EMPTY_DIM):
        t[ember.tensor([5])] = 1.
    with pytest.raises(IndexError, match=EMPTY_DIM):
        t.index_put_((ember.tensor([5]),), ember.tensor(1.))
    with pytest.raises(IndexError, match=EMPTY_DIM):
        t.index_put_((ember.tensor([5]),), ember.tensor(1.), accumulate=True)


def test_index_select_on_an_empty_tensor_checks_its_indices():
    # PyTorch raises here too (a RuntimeError for some of these shapes); ember raises the IndexError it
    # raises for the same index into a non-empty tensor, naming the index, dim and size.
    for shape, dim, idx in [((0, 3), 0, 5), ((3, 0), 1, 5), ((3, 0), 0, 5), ((3, 0), 0, -4), ((3, 0, 2), 2, 3),
                            ((3, 0, 2), 0, 3), ((0,), 0, 5)]:
        size = shape[dim]
        with pytest.raises(IndexError, match=rf"index {idx} is out of bounds for dimension {dim} with size {size}"):
            ember.index_select(ember.zeros(*shape), dim, ember.tensor([idx]))
    # in-range indices into an empty tensor give an empty result
    assert ember.index_select(ember.zeros(3, 0), 0, ember.tensor([2, 0, -3])).shape == (3, 0)
    assert ember.index_select(ember.zeros(3, 0), 1, ember.tensor([], dtype=ember.int64)).shape == (3, 0)


def _u8(values):
    return ember.tensor(values, dtype=ember.uint8)


def test_uint8_mask_read_works_with_a_deprecation_warning():
    t = ember.arange(4.)
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated|uint8.*deprecated"):
        r = t[_u8([1, 0, 1, 0])]
    np.testing.assert_array_equal(r.numpy(), [0, 2])


def test_uint8_mask_write_of_a_number_raises():
    t = ember.arange(4.)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype"):
            t[_u8([1, 0, 1, 0])] = 9.
        with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype"):
            t.index_put_((_u8([1, 0, 1, 0]),), ember.tensor(5.))
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2, 3])


def test_uint8_mask_write_of_a_tensor_works():
    t = ember.arange(4.)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t[_u8([1, 0, 1, 0])] = ember.tensor([7., 8.])
    np.testing.assert_array_equal(t.numpy(), [7, 1, 8, 3])


def test_uint8_masks_in_masked_ops_raise():
    t = ember.arange(4.)
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype"):
        t.masked_fill(_u8([1, 0, 1, 0]), 1.)
    with pytest.raises(RuntimeError, match="masked_select: .*boolean masks, but got mask with dtype uint8"):
        t.masked_select(_u8([1, 0, 1, 0]))
