"""Flags typed bool take only True or False, as PyTorch's argument parser: an int (even 0 or 1), a
float, a string, None, numpy.bool_ or a tensor is a TypeError naming the argument."""
import numpy as np
import pytest

import ember


@pytest.mark.parametrize("bad, tname", [(2, "int"), (1, "int"), (0, "int"), ("yes", "str"), (1.0, "float"),
                                        (None, "NoneType"), (np.bool_(True), r"numpy\.bool_?")])
def test_sum_keepdim_must_be_bool(bad, tname):
    x = ember.ones(2, 3)
    with pytest.raises(TypeError, match=rf"sum\(\): argument 'keepdim' must be bool, not {tname}"):
        ember.sum(x, 0, keepdim=bad)
    with pytest.raises(TypeError, match=rf"sum\(\): argument 'keepdim' must be bool, not {tname}"):
        x.sum(0, keepdim=bad)


def test_positional_bool_names_its_position():
    x = ember.ones(2, 3)
    with pytest.raises(TypeError, match=r"sum\(\): argument 'keepdim' \(position 2\) must be bool, not int"):
        x.sum(0, 2)


def test_a_tensor_is_not_a_bool_flag():
    with pytest.raises(TypeError, match="argument 'keepdim' must be bool, not"):
        ember.sum(ember.ones(2, 3), 0, keepdim=ember.tensor(True))


@pytest.mark.parametrize("call", [
    lambda x: ember.topk(x, 1, sorted=1.5),
    lambda x: ember.sort(x, descending=1),
    lambda x: ember.sort(x, stable=1),
    lambda x: ember.argsort(x, descending=2),
    lambda x: ember.max(x, 0, keepdim=2),
    lambda x: ember.mean(x, 0, keepdim=2),
    lambda x: ember.all(x, 0, keepdim=np.bool_(False)),
    lambda x: ember.any(x, 0, keepdim=np.int64(1)),
    lambda x: ember.allclose(x, x, equal_nan=1),
    lambda x: ember.isclose(x, x, equal_nan=1),
    lambda x: ember.nonzero(x, as_tuple=1),
    lambda x: x.clone().requires_grad_(2),
])
def test_other_bool_flags_refuse_non_bools(call):
    with pytest.raises(TypeError, match=r"must be bool, not|invalid combination of arguments"):
        call(ember.ones(2, 3))


def test_true_and_false_still_work():
    x = ember.ones(2, 3)
    assert ember.sum(x, 0, keepdim=True).shape == (1, 3)
    assert ember.sum(x, 0, keepdim=False).shape == (3,)
    assert x.sum(0, True).shape == (1, 3)
    v, _ = ember.sort(ember.tensor([2., 1., 3.]), descending=True)
    np.testing.assert_array_equal(v.numpy(), [3, 2, 1])
