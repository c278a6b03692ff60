"""hardtanh/relu6 on integer tensors (PyTorch clamps to the limits truncated to the dtype), their
refusals (bool, uint8 with a negative limit, limits past the dtype), and one_hot's empty-input rule."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F


@pytest.mark.parametrize("dtype", [ember.int8, ember.int16, ember.int32, ember.int64])
def test_hardtanh_signed_truncates_limits(dtype):
    a = np.array([1, -2, 9, 0, -7], dtype=np.int64)
    out = F.hardtanh(ember.tensor(a.tolist(), dtype=dtype), -1.5, 2.7)
    assert out.dtype == dtype
    assert out.tolist() == np.clip(a, -1, 2).tolist()
    assert F.hardtanh(ember.tensor(a.tolist(), dtype=dtype)).tolist() == np.clip(a, -1, 1).tolist()


def test_relu6_uint8_and_inplace():
    x = ember.tensor([1, 254, 9, 3], dtype=ember.uint8)
    assert F.relu6(x).tolist() == [1, 6, 6, 3]
    y = ember.tensor([-3, 4, 8])
    assert F.relu6(y, inplace=True) is y and y.tolist() == [0, 4, 6]


@pytest.mark.parametrize("call, message", [
    (lambda: F.hardtanh(ember.tensor([True])), "Bool inputs not supported for hardtanh"),
    (lambda: F.hardtanh(ember.tensor([1], dtype=ember.uint8)), "unsigned type with negative limits"),
    (lambda: F.hardtanh(ember.tensor([1], dtype=ember.int8), -1000.0, 1000.0), "int8 without overflow"),
    (lambda: F.hardtanh(ember.tensor([1]), float("nan"), 1.0), "int64 without overflow"),
    (lambda: F.hardtanh(ember.tensor([1.0]), -1e300, 1e300), "float32 without overflow"),
    (lambda: F.one_hot(ember.tensor([], dtype=ember.int64)), "Can not infer total number of classes"),
])
def test_refusals(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_one_hot_empty_with_classes():
    assert F.one_hot(ember.tensor([], dtype=ember.int64), 3).shape == (0, 3)


@pytest.mark.parametrize("conv", [F.conv1d, F.conv_transpose1d])
def test_conv_dilation_past_int64_is_refused(conv):
    with pytest.raises(RuntimeError, match="dilation .* overflow int64"):
        conv(ember.randn(1, 1, 5), ember.randn(1, 1, 3), dilation=2 ** 62)
