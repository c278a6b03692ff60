"""nn.utils.parametrize, weight_norm and spectral_norm: values against NumPy (norms, SVD),
parameter names as PyTorch gives them, right_inverse on assignment, caching and removal."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn.utils import parametrizations, parametrize


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)

    def right_inverse(self, a):
        return a.triu()


def test_register_assign_cache_remove():
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Symmetric())
    w = m.weight.detach().numpy()
    np.testing.assert_allclose(w, w.T)
    assert parametrize.is_parametrized(m, "weight") and not parametrize.is_parametrized(m, "bias")
    assert type(m).__name__ == "ParametrizedLinear" and parametrize.type_before_parametrizations(m) is nn.Linear
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "parametrizations.weight.original"]
    target = np.array([[1.0, 2, 3], [2, 4, 5], [3, 5, 6]], dtype=np.float32)
    m.weight = ember.tensor(target)  # through right_inverse
    np.testing.assert_allclose(m.weight.detach().numpy(), target)
    with parametrize.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    m(ember.ones(2, 3)).sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(m.weight.detach().numpy(), target)
    with pytest.raises(ValueError, match="does not have a parametrization"):
        parametrize.remove_parametrizations(m, "weight")


def test_shape_change_refused_unless_unsafe():
    class Half(nn.Module):
        def forward(self, x):
            return x[: x.shape[0] // 2]
    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(nn.Linear(2, 4), "weight", Half())
    m = parametrize.register_parametrization(nn.Linear(2, 4), "weight", Half(), unsafe=True)
    assert tuple(m.weight.shape) == (2, 2)


@pytest.mark.parametrize("dim", [0, 1])
def test_weight_norm(dim):
    m = nn.Linear(4, 3)
    w0 = m.weight.detach().numpy().copy()
    parametrizations.weight_norm(m, dim=dim)
    g = m.parametrizations.weight.original0.detach().numpy()
    v = m.parametrizations.weight.original1.detach().numpy()
    norm = np.sqrt((v * v).sum(axis=1 - dim, keepdims=True))
    np.testing.assert_allclose(g, norm, rtol=1e-6)
    np.testing.assert_allclose(m.weight.detach().numpy(), w0, rtol=1e-5)
    x = ember.randn(2, 4)
    m(x).sum().backward()
    assert m.parametrizations.weight.original0.grad.shape == m.parametrizations.weight.original0.shape


def test_spectral_norm_bounds_largest_singular_value():
    ember.manual_seed(0)
    m = nn.Linear(6, 5)
    parametrizations.spectral_norm(m, n_power_iterations=3)
    for _ in range(5):
        w = m.weight
    s = np.linalg.svd(w.detach().numpy().astype(np.float64), compute_uv=False)
    assert abs(s[0] - 1.0) < 1e-3
    c = nn.Conv2d(2, 3, 3)
    parametrizations.spectral_norm(c)
    s = np.linalg.svd(c.weight.detach().numpy().reshape(3, -1).astype(np.float64), compute_uv=False)
    assert abs(s[0] - 1.0) < 1e-2
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        parametrizations.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
