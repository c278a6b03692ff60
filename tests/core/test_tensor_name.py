"""Tensor.name as PyTorch 2.13 has it for eager tensors: None, on results and views too, and not assignable."""
import pytest

import ember


def test_name_is_none_for_eager_tensors():
    t = ember.ones(2, 3)
    assert t.name is None and (t + 1).name is None and t[0].name is None
    assert ember.nn.Parameter(ember.ones(2)).name is None


def test_name_is_read_only():
    with pytest.raises(AttributeError):
        ember.ones(2).name = "w"
