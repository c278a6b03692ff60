"""Shared helpers for the ember.distributions tests: float64 tensors from NumPy and back."""
import numpy as np

import ember


def t(x, requires_grad=False):
    """A float64 ember tensor of x."""
    return ember.tensor(np.asarray(x, dtype=np.float64), dtype=ember.float64, requires_grad=requires_grad)


def n(x):
    """x (an ember tensor or a number) as a float64 NumPy array."""
    if isinstance(x, ember.Tensor):
        return np.asarray(x.detach().tolist(), dtype=np.float64)
    return np.asarray(x, dtype=np.float64)


def close(actual, expected, rtol=1e-9, atol=1e-11):
    """assert_allclose on an ember result against a NumPy/SciPy reference (NaN matches NaN)."""
    np.testing.assert_allclose(n(actual), np.asarray(expected, dtype=np.float64), rtol=rtol, atol=atol, equal_nan=True)
