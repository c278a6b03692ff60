"""F.embedding_bag(max_norm=...) and nn.EmbeddingBag(max_norm=...) in scripted code: the rows the bags look up are
renormed in place to at most max_norm (scale max_norm / (norm + 1e-7), as PyTorch's embedding_renorm_) before they are
summed, averaged or maxed, as eager code does. Reference: the same renorm and bag sums written in NumPy."""
from typing import Optional

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import nn


def renormed(weight, used, max_norm, p):
    w = weight.copy()
    for row in sorted(set(used)):
        norm = np.sum(np.abs(w[row]) ** p) ** (1 / p)
        if norm > max_norm:
            w[row] *= max_norm / (norm + 1e-7)
    return w


@ember.jit.script
def bags(x: ember.Tensor, w: ember.Tensor, offsets: ember.Tensor, max_norm: float, p: float, mode: str):
    return F.embedding_bag(x, w, offsets, max_norm=max_norm, norm_type=p, mode=mode)


@ember.jit.script
def bags_no_norm(x: ember.Tensor, w: ember.Tensor, offsets: ember.Tensor, max_norm: Optional[float]):
    return F.embedding_bag(x, w, offsets, max_norm=max_norm)


def weights():
    rng = np.random.default_rng(0)
    return (rng.normal(size=(10, 4)) * 3).astype(np.float64)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("p", [2.0, 1.0])
def test_scripted_bags_renorm_the_weight_in_place(mode, p):
    w0 = weights()
    x, offsets = [1, 2, 4, 5, 4, 3, 2, 9], [0, 3]
    w = ember.tensor(w0)
    out = bags(ember.tensor(x), w, ember.tensor(offsets), 1.5, p, mode)
    want_w = renormed(w0, x, 1.5, p)
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-12, atol=1e-12)  # changed in place
    np.testing.assert_array_equal(w.numpy()[[0, 6, 7, 8]], w0[[0, 6, 7, 8]])  # rows not looked up are untouched
    reduce = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode]
    want = np.stack([reduce(want_w[x[0:3]], 0), reduce(want_w[x[3:]], 0)])
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-12)
    eager_w = ember.tensor(w0)
    eager = F.embedding_bag(ember.tensor(x), eager_w, ember.tensor(offsets), max_norm=1.5, norm_type=p, mode=mode)
    np.testing.assert_array_equal(out.numpy(), eager.numpy())
    np.testing.assert_array_equal(w.numpy(), eager_w.numpy())


def test_none_max_norm_leaves_the_weight():
    w0 = weights()
    w = ember.tensor(w0)
    bags_no_norm(ember.tensor([1, 2, 3]), w, ember.tensor([0]), None)
    np.testing.assert_array_equal(w.numpy(), w0)


def test_scripted_module_with_max_norm():
    ember.manual_seed(0)
    eager = nn.EmbeddingBag(10, 3, max_norm=0.5, mode="max")
    with ember.no_grad():
        eager.weight.mul_(4)
    scripted_model = nn.EmbeddingBag(10, 3, max_norm=0.5, mode="max")
    scripted_model.load_state_dict(eager.state_dict())
    scripted = ember.jit.script(scripted_model)
    x = ember.tensor([[1, 2, 4, 5], [4, 3, 2, 9]])
    got, want = scripted(x), eager(x)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    np.testing.assert_array_equal(scripted_model.weight.detach().numpy(), eager.weight.detach().numpy())
    norms = np.linalg.norm(scripted_model.weight.detach().numpy(), axis=1)
    assert np.all(norms[[1, 2, 3, 4, 5, 9]] <= 0.5 + 1e-6) and np.all(norms[[0, 6, 7, 8]] > 0.5)
    got.sum().backward()  # the renorm is not recorded: the gradient reaches the weight through the lookup only
    assert scripted_model.weight.grad is not None


def test_bad_input_errors_are_eagers():
    w = ember.tensor(weights())
    with pytest.raises(IndexError, match="index out of range in self"):
        bags(ember.tensor([1, 12]), w, ember.tensor([0]), 1.0, 2.0, "sum")
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max, got median"):
        bags(ember.tensor([1, 2]), w, ember.tensor([0]), 1.0, 2.0, "median")
    with pytest.raises(ValueError, match="offsets\\[0\\] has to be 0"):
        bags(ember.tensor([1, 2]), w, ember.tensor([1]), 1.0, 2.0, "sum")
