"""ctc_loss against its definition: -log of the summed probability of every frame-level path
that collapses (merge repeats, drop blanks) to the target, enumerated in NumPy."""
import itertools

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck


def collapse(path, blank):
    out, prev = [], None
    for p in path:
        if p != prev and p != blank:
            out.append(p)
        prev = p
    return out


def brute(lp, labels, blank=0):
    T, C = lp.shape
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        if collapse(path, blank) == list(labels):
            total += np.exp(sum(lp[t, p] for t, p in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


def log_softmax(x):
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_matches_path_enumeration(reduction):
    rng = np.random.default_rng(0)
    lp = log_softmax(rng.standard_normal((5, 3, 3)))
    targets = np.array([[1, 2, 0], [1, 1, 0], [2, 0, 0]])
    in_lens, tg_lens = [5, 4, 5], [2, 2, 1]
    per = np.array([brute(lp[:in_lens[i], i], targets[i, :tg_lens[i]]) for i in range(3)])
    want = {"none": per, "sum": per.sum(), "mean": (per / np.array(tg_lens)).mean()}[reduction]
    got = F.ctc_loss(ember.tensor(lp), ember.tensor(targets), in_lens, tg_lens, reduction=reduction)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    flat = F.ctc_loss(ember.tensor(lp), ember.tensor([1, 2, 1, 1, 2]), in_lens, tg_lens, reduction=reduction)
    np.testing.assert_allclose(flat.numpy(), want, rtol=1e-10)


def test_blank_elsewhere_gradcheck_and_impossible():
    rng = np.random.default_rng(1)
    lp = log_softmax(rng.standard_normal((4, 1, 3)))
    got = F.ctc_loss(ember.tensor(lp), ember.tensor([[0, 1]]), [4], [2], blank=2, reduction="none")
    np.testing.assert_allclose(got.numpy(), [brute(lp[:, 0], [0, 1], blank=2)], rtol=1e-10)
    x = ember.tensor(rng.standard_normal((4, 1, 3)), requires_grad=True)
    assert gradcheck(lambda t: F.ctc_loss(t.log_softmax(2), ember.tensor([[1, 1]]), [4], [2]), (x,))
    # "1 1" needs a blank between: 3 labels in 2 frames cannot be aligned
    imp = ember.tensor(log_softmax(rng.standard_normal((2, 1, 3))))
    assert np.isinf(F.ctc_loss(imp, ember.tensor([[1, 1]]), [2], [2], reduction="sum").item())
    assert nn.CTCLoss(zero_infinity=True, reduction="sum")(imp, ember.tensor([[1, 1]]), [2], [2]).item() == 0
    with pytest.raises(IndexError, match="not the blank"):
        F.ctc_loss(imp, ember.tensor([[0, 1]]), [2], [2])
