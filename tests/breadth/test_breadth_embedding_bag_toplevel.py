"""ember.embedding_bag, the top-level form (core/ember/_embedding_bag_toplevel.py), against a NumPy loop over bags,
with PyTorch's four results and its messages."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck

W = np.random.default_rng(0).standard_normal((10, 3))
IDX = np.array([1, 2, 4, 5, 4, 3, 2, 9])


def _np_bags(weight, idx, offsets, mode, include_last_offset=False, padding_idx=None, psw=None):
    """Per bag: output row, its count of non-padding indices, and (max) the row each column's maximum came from."""
    bounds = list(offsets) + ([] if include_last_offset else [len(idx)])
    out, sizes, argmax = [], [], []
    for b in range(len(bounds) - 1):
        members = [k for k in range(bounds[b], bounds[b + 1]) if idx[k] != padding_idx]
        rows = np.array([weight[idx[k]] * (psw[k] if psw is not None else 1) for k in members]).reshape(-1, 3)
        sizes.append(len(members))
        if mode == 2:
            out.append(rows.max(0) if len(members) else np.zeros(3))
            argmax.append([idx[members[int(np.argmax(rows[:, c]))]] if members else 0 for c in range(3)])
        else:
            total = rows.sum(0)
            out.append(total / max(len(members), 1) if mode == 1 else total)
    return np.array(out), np.array(sizes), np.array(argmax)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("offsets,ilo,pad", [([0, 4], False, None), ([0, 4, 4], False, None), ([0, 4, 8], True, None),
                                             ([0, 3], False, 2), ([0, 0, 5], False, 4)])
def test_matches_numpy(mode, offsets, ilo, pad):
    out, off2bag, bag_size, max_idx = ember.embedding_bag(ember.tensor(W), ember.tensor(IDX), ember.tensor(offsets),
                                                          False, mode, False, None, ilo, pad)
    want, sizes, argmax = _np_bags(W, IDX, offsets, mode, ilo, pad)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    starts = offsets[:-1] if ilo else offsets
    np.testing.assert_array_equal(off2bag.numpy(), np.searchsorted(starts, np.arange(len(IDX)), side="right") - 1)
    if mode == 0:  # PyTorch's sum kernel leaves the bookkeeping zero, one entry per offset
        np.testing.assert_array_equal(bag_size.numpy(), np.zeros(len(offsets)))
        np.testing.assert_array_equal(max_idx.numpy(), np.zeros(len(offsets)))
    else:
        np.testing.assert_array_equal(bag_size.numpy(), sizes)
        np.testing.assert_array_equal(max_idx.numpy(), argmax if mode == 2 else sizes)


def test_per_sample_weights_and_gradient():
    psw = np.linspace(0.5, 2, 8)
    out = ember.embedding_bag(ember.tensor(W), ember.tensor(IDX), ember.tensor([0, 4]), False, 0, False,
                              ember.tensor(psw))[0]
    np.testing.assert_allclose(out.numpy(), _np_bags(W, IDX, [0, 4], 0, psw=psw)[0], rtol=1e-12)
    w = ember.tensor(W, requires_grad=True)
    s = ember.tensor(psw, requires_grad=True)
    offsets = ember.tensor([0, 3, 6])
    assert gradcheck(lambda w_, s_: ember.embedding_bag(w_, ember.tensor(IDX), offsets, False, 0, False, s_)[0],
                     (w, s))
    for mode in (1, 2):
        assert gradcheck(lambda w_: ember.embedding_bag(w_, ember.tensor(IDX), offsets, False, mode)[0], (w,))


def test_errors_as_pytorch():
    w, i, o = ember.tensor(W), ember.tensor(IDX), ember.tensor([0, 4])
    with pytest.raises(RuntimeError, match="`mode` must be sum, mean, or max."):
        ember.embedding_bag(w, i, o, False, 3)
    with pytest.raises(RuntimeError, match="per_sample_weights only supported with mode='sum'"):
        ember.embedding_bag(w, i, o, False, 1, False, ember.ones(8, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have one of the following "
                                           "scalar types: Long, Int; but got torch.FloatTensor instead"):
        ember.embedding_bag(w, i, o.float())
    with pytest.raises(TypeError, match="argument 'offsets' \\(position 3\\) must be Tensor, not NoneType"):
        ember.embedding_bag(w, i, None)
