"""Number parameters of the Python functionals take a Python number or a 0-dim Tensor, and refuse a
Tensor with dims as PyTorch's bindings do (found by the fuzz campaign: rrelu raised a ValueError from
float() of a 7-element tensor)."""
import pytest

import ember
import ember.nn.functional as F


@pytest.mark.parametrize("bad", [ember.ones(7, 1, dtype=ember.int8), ember.ones(1), ember.ones(2, 2)])
def test_tensor_with_dims_is_refused(bad):
    with pytest.raises(TypeError, match=r"rrelu\(\): argument 'lower' \(position 2\) must be Number, not Tensor"):
        F.rrelu(ember.ones(3), bad, 0.5)
    with pytest.raises(TypeError, match=r"hardtanh\(\): argument 'max_val' \(position 3\) must be Number, not Tensor"):
        F.hardtanh(ember.ones(3), -1.0, bad)


def test_zero_dim_tensor_is_a_number():
    x = ember.tensor([-2.0, 0.5, 3.0])
    assert F.rrelu(x, ember.tensor(0.25), ember.tensor(0.25)).tolist() == [-0.5, 0.5, 3.0]
    assert F.hardtanh(x, ember.tensor(-1.0), 1.0).tolist() == [-1.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        F.rrelu(x, ember.tensor(1, dtype=ember.int8), 0.0)
