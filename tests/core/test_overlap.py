"""Written-to tensors that overlap themselves or what the op reads: PyTorch's memory-overlap rules.
An out= or in-place destination may be the input itself (full overlap: each element is read before
it is written), but not share only part of its memory with an input (partial overlap), nor write one
memory location twice (internal overlap, e.g. an expanded tensor). Ops that read their inputs out of
order (index_select, gather, take, scatter, index_add_...) refuse any overlap, even a full one.
The messages are PyTorch's, written out here."""
import numpy as np
import pytest

import ember

PARTIAL = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone")
INTERNAL = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone")


def _x():
    return ember.arange(6.).reshape(2, 3)


def _expanded():
    return ember.zeros(1, 3).expand(2, 3)


# ---- the tensor iterator (elementwise ops) ----

def test_unary_out_partially_overlapping_input_raises():
    x = _x()
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.sinh(x, out=x.unsqueeze(0))
    np.testing.assert_array_equal(x.numpy(), np.arange(6.).reshape(2, 3))  # untouched
    y = ember.ones(3, 3)
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.sinh(y, out=y.t())


def test_out_that_is_the_input_is_allowed():
    x = _x()
    r = ember.sinh(x, out=x)
    assert r is x
    np.testing.assert_allclose(x.numpy(), np.sinh(np.arange(6.).reshape(2, 3)), rtol=1e-6)
    b = ember.arange(12.)
    b[:4].add_(b[:4])
    np.testing.assert_array_equal(b.numpy()[:4], [0, 2, 4, 6])


def test_binary_and_ternary_out_partial_overlap_raise():
    x = _x()
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.add(x, x, out=x.unsqueeze(0))
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.lerp(x, x + 1, 0.5, out=x.unsqueeze(0))
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.clamp(x, 0, 1, out=x.unsqueeze(0))
    b = ember.arange(12.)
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.where(b[:4] > 2, b[4:8], b[8:12], out=b[2:6])


def test_inplace_reading_a_shifted_view_of_itself_raises():
    t = ember.arange(6.)
    with pytest.raises(RuntimeError, match=PARTIAL):
        t[1:].add_(t[:-1])
    with pytest.raises(RuntimeError, match=PARTIAL):
        t[1:].copy_(t[:-1])
    b = ember.arange(12.)
    with pytest.raises(RuntimeError, match=PARTIAL):
        b[:4].mul_(b[2:6])
    with pytest.raises(RuntimeError, match=PARTIAL):
        b[:4].lerp_(ember.ones(4), b[2:6])
    with pytest.raises(RuntimeError, match=PARTIAL):
        b[0:4] = b[2:6]  # a slice assignment is a copy_
    np.testing.assert_array_equal(b.numpy(), np.arange(12.))


def test_disjoint_views_of_one_storage_are_fine():
    b = ember.arange(12.)
    ember.add(b[:4], b[4:8], out=b[8:12])
    np.testing.assert_array_equal(b.numpy()[8:], [4, 6, 8, 10])
    b[4:8].copy_(b[:4])
    np.testing.assert_array_equal(b.numpy()[4:8], [0, 1, 2, 3])


def test_non_dense_overlap_is_computed_through_a_copy():
    # PyTorch cannot tell these apart (neither is dense) and does not raise; ember gives the right answer.
    x = _x()
    src = x[:, 1:].clone()
    ember.sinh(x[:, 1:], out=x[:, :2])
    np.testing.assert_allclose(x[:, :2].numpy(), np.sinh(src.numpy()), rtol=1e-6)


def test_writing_into_an_expanded_tensor_raises():
    with pytest.raises(RuntimeError, match=INTERNAL):
        _expanded().add_(1)
    with pytest.raises(RuntimeError, match=INTERNAL):
        _expanded().mul_(2)
    with pytest.raises(RuntimeError, match=INTERNAL):
        _expanded().neg_()
    with pytest.raises(RuntimeError, match=INTERNAL):
        _expanded().copy_(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match=INTERNAL):
        ember.exp(_x(), out=_expanded())
    with pytest.raises(RuntimeError, match=INTERNAL):
        ember.cat([ember.ones(1, 3), ember.ones(1, 3)], out=_expanded())


def test_fill_and_zero_of_an_expanded_tensor_are_allowed():
    # PyTorch writes the one value to every location.
    np.testing.assert_array_equal(_expanded().fill_(1).numpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(_expanded().zero_().numpy(), np.zeros((2, 3)))


# ---- hand-written kernels that write ----

def test_index_add_and_scatter_add_into_an_expanded_tensor_raise():
    with pytest.raises(RuntimeError, match=INTERNAL):
        _expanded().index_add_(0, ember.tensor([0]), ember.ones(1, 3))
    with pytest.raises(RuntimeError, match=INTERNAL):
        _expanded().index_copy_(0, ember.tensor([0]), ember.ones(1, 3))
    with pytest.raises(RuntimeError, match=INTERNAL):
        _expanded().scatter_add_(0, ember.tensor([[0, 0, 0]]), ember.ones(1, 3))
    with pytest.raises(RuntimeError, match=INTERNAL):
        _expanded().scatter_(0, ember.tensor([[0, 0, 0]]), ember.ones(1, 3))
    with pytest.raises(RuntimeError, match=INTERNAL):
        _expanded().masked_scatter_(ember.ones(2, 3, dtype=ember.bool), ember.ones(6))
    with pytest.raises(RuntimeError, match=INTERNAL):
        _expanded().put_(ember.tensor([0]), ember.ones(1))


def test_index_writes_refuse_a_source_or_index_sharing_self():
    b = ember.arange(12.)
    idx = ember.tensor([0, 1, 2, 3])
    for src in (b[:4], b[2:6]):  # full and partial overlap alike
        with pytest.raises(RuntimeError, match=PARTIAL):
            b[:4].index_add_(0, idx, src)
        with pytest.raises(RuntimeError, match=PARTIAL):
            b[:4].index_copy_(0, idx, src)
        with pytest.raises(RuntimeError, match=PARTIAL):
            b[:4].scatter_add_(0, idx, src)
        with pytest.raises(RuntimeError, match=PARTIAL):
            b[:4].scatter_(0, idx, src)
        with pytest.raises(RuntimeError, match=PARTIAL):
            b[:4].scatter_reduce_(0, idx, src, "sum")
        with pytest.raises(RuntimeError, match=PARTIAL):
            b[:4].put_(idx, src)
        with pytest.raises(RuntimeError, match=PARTIAL):
            b[:4].index_put_((idx,), src)
    np.testing.assert_array_equal(b.numpy(), np.arange(12.))
    i = ember.arange(8)
    with pytest.raises(RuntimeError, match=PARTIAL):
        i[:4].scatter_(0, i[:4], 1)
    with pytest.raises(RuntimeError, match=PARTIAL):
        i[:4].index_put_((i[:4],), ember.tensor(1))
    # a disjoint source still works
    b[:4].index_add_(0, idx, b[4:8])
    np.testing.assert_array_equal(b.numpy()[:4], [4, 6, 8, 10])


def test_index_select_out_may_not_overlap_its_input_or_index():
    y = ember.arange(10.)
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.index_select(y, 0, ember.tensor([0, 1, 2]), out=y[2:5])
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.index_select(y[:4], 0, ember.tensor([0, 1, 2, 3]), out=y[:4])  # even out=input
    i = ember.tensor([0, 1, 2])
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.index_select(ember.arange(5), 0, i, out=i)
    out = ember.empty(3)
    ember.index_select(y, 0, ember.tensor([4, 0, 9]), out=out)
    np.testing.assert_array_equal(out.numpy(), [4, 0, 9])


def test_gather_take_masked_select_out_overlap():
    b = ember.arange(12.)
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.gather(b[:4], 0, ember.tensor([0, 1, 2, 3]), out=b[:4])
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.take(b[:4], ember.tensor([0, 1, 2, 3]), out=b[:4])
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.masked_select(b[:4], ember.ones(4, dtype=ember.bool), out=b[:4])
    i = ember.arange(8)
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.gather(ember.arange(8), 0, i[:4], out=i[2:6])
    # gather may write over its index, read in the same order (PyTorch allows the full overlap)
    src = ember.arange(10, 18)
    r = ember.gather(src, 0, i[:4], out=i[:4])
    np.testing.assert_array_equal(r.numpy(), [10, 11, 12, 13])


def test_mask_fill_from_an_element_of_itself_is_allowed():
    # One bool mask and a 0-dim value is PyTorch's masked_fill_, which reads the value once.
    t = ember.arange(12.).reshape(3, 4)
    t[t > 5] = t[0, 1]
    want = np.arange(12.).reshape(3, 4)
    want[want > 5] = 1.
    np.testing.assert_array_equal(t.numpy(), want)


def test_scan_scatter_and_nonzero_out_overlap():
    b = ember.arange(12.)
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.cumsum(b[:4], 0, out=b[2:6])
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.cumprod(b[:4], 0, out=b[2:6])
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.scatter_add(b[:4], 0, ember.tensor([0, 1]), b[8:10], out=b[2:6])
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.scatter(b[:4], 0, ember.tensor([0, 1]), b[4:6], out=b[4:6])  # out is src
    i = ember.arange(8)
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.nonzero(i[:4], out=i[2:6].view(4, 1))
    np.testing.assert_array_equal(b.numpy(), np.arange(12.))
    # out=input: the scan and the out= scatter (which starts from a copy of input) work in place
    ember.cumsum(b[:4], 0, out=b[:4])
    np.testing.assert_array_equal(b.numpy()[:4], [0, 1, 3, 6])
    r = ember.scatter(b[4:8], 0, ember.tensor([0]), ember.tensor([-1.]), out=b[4:8])
    np.testing.assert_array_equal(r.numpy(), [-1, 5, 6, 7])


def test_masked_ops_with_bool_masks_overlap():
    b = ember.arange(12.)
    m = ember.ones(4, dtype=ember.bool)
    with pytest.raises(RuntimeError, match=PARTIAL):
        ember.masked_select(b[:4], m, out=b[:4])
    # masked_scatter_ reads its source in order: PyTorch allows it to overlap self
    b[:4].masked_scatter_(m, b[2:6])
    np.testing.assert_array_equal(b.numpy()[:4], [2, 3, 4, 5])
