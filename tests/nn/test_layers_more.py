"""Padding layers against numpy.pad, Softmax2d, init.orthogonal_ and the hook-based weight_norm."""
import numpy as np
import pytest

import ember
import ember.nn as nn

rng = np.random.default_rng(6)


@pytest.mark.parametrize("cls,np_mode", [(nn.ReflectionPad2d, "reflect"), (nn.ReplicationPad2d, "edge"),
                                         (nn.CircularPad2d, "wrap"), (nn.ZeroPad2d, "constant")])
def test_padding_layers(cls, np_mode):
    x = rng.standard_normal((1, 2, 3, 4))
    got = cls((1, 2, 2, 0))(ember.tensor(x)).numpy()
    np.testing.assert_allclose(got, np.pad(x, [(0, 0), (0, 0), (2, 0), (1, 2)], mode=np_mode))


def test_constant_pad_3d_and_errors():
    x = rng.standard_normal((1, 1, 2, 2, 2))
    got = nn.ConstantPad3d(1, 7.0)(ember.tensor(x)).numpy()
    np.testing.assert_allclose(got, np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1)], constant_values=7.0))
    with pytest.raises(ValueError, match="padding must be an int or a tuple of 4 ints"):
        nn.ZeroPad2d((1, 2, 3))
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        nn.ReflectionPad1d(3)(ember.zeros(1, 1, 3))


def test_softmax2d():
    x = rng.standard_normal((2, 3, 2, 2))
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(nn.Softmax2d()(ember.tensor(x)).numpy(), e / e.sum(1, keepdims=True), rtol=1e-12)


@pytest.mark.parametrize("shape", [(3, 5), (6, 2, 2), (4, 4)])
def test_orthogonal_init(shape):
    w = ember.empty(*shape, dtype=ember.float64)
    nn.init.orthogonal_(w, gain=1.5)
    a = w.numpy().reshape(shape[0], -1)
    gram = a @ a.T if a.shape[0] <= a.shape[1] else a.T @ a
    np.testing.assert_allclose(gram, 2.25 * np.eye(gram.shape[0]), atol=1e-10)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        nn.init.orthogonal_(ember.empty(3))


def test_hook_weight_norm():
    m = nn.Linear(4, 3).double()
    w0 = m.weight.detach().numpy().copy()
    nn.utils.weight_norm(m)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(m.weight_g.detach().numpy(), np.linalg.norm(w0, axis=1, keepdims=True), rtol=1e-12)
    with ember.no_grad():
        m.weight_g.mul_(2)
    x = ember.tensor(rng.standard_normal((2, 4)))
    np.testing.assert_allclose(m(x).detach().numpy(), x.numpy() @ (2 * w0).T + m.bias.detach().numpy(), rtol=1e-10)
    m(x).sum().backward()
    assert m.weight_v.grad is not None and m.weight_g.grad is not None
    nn.utils.remove_weight_norm(m)
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * w0, rtol=1e-10)
    assert isinstance(m.weight, nn.Parameter)
