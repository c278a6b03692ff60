"""nn.LayerNorm(bias=False), as PyTorch's: a weight, `bias` None, and y = normalized * weight."""
import numpy as np

import ember
import ember.nn as nn


def test_layer_norm_without_bias_has_weight_only():
    norm = nn.LayerNorm(5, bias=False)
    assert norm.bias is None and [n for n, _ in norm.named_parameters()] == ["weight"]
    norm.weight.data.uniform_(0.5, 1.5)
    x = ember.randn(3, 5)
    a = x.numpy().astype(np.float64)
    expected = (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5) * norm.weight.detach().numpy()
    np.testing.assert_allclose(norm(x).detach().numpy(), expected, rtol=1e-5, atol=1e-5)
