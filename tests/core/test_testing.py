"""ember.testing.assert_close and make_tensor against PyTorch's documented behaviour: the messages
below are torch.testing's (2.13), written out with ember's names."""
import math
import re

import numpy as np
import pytest

import ember
from ember.testing import assert_close, make_tensor


def _fails(kind, text, actual, expected, **kw):
    with pytest.raises(kind) as info:
        assert_close(actual, expected, **kw)
    assert str(info.value) == text


def test_close_inputs_pass():
    assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0 + 1e-6]))
    assert_close(ember.tensor([1, 2]), ember.tensor([1, 2]))
    assert_close(1.0, 1.0 + 1e-8)
    assert_close(ember.zeros(0), ember.zeros(0))
    assert_close([ember.tensor(1.0), 2], (ember.tensor(1.0), 2))
    assert_close({"a": ember.ones(2)}, {"a": ember.ones(2)})
    assert_close(None, None)
    assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    assert_close(ember.tensor([float("nan")]), ember.tensor([float("nan")]), equal_nan=True)
    assert_close(ember.tensor([math.inf]), ember.tensor([math.inf]))
    assert_close(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64), check_dtype=False)
    assert_close(ember.tensor([1.0], requires_grad=True), ember.tensor([1.0]))


def test_float_mismatch_message():
    _fails(AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
           "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
           "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)",
           ember.tensor([1.0, 2.0, 3.0]), ember.tensor([1.0, 2.5, 3.0]))
    _fails(AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 1 / 4 (25.0%)\n"
           "Greatest absolute difference: 1.0 at index (1, 1) (up to 1e-05 allowed)\n"
           "Greatest relative difference: 0.20000000298023224 at index (1, 1) (up to 1.3e-06 allowed)",
           ember.tensor([[1.0, 2.0], [3.0, 4.0]]), ember.tensor([[1.0, 2.0], [3.0, 5.0]]))


def test_zero_tolerance_says_equal_and_no_allowance():
    _fails(AssertionError, "Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\n"
           "Greatest absolute difference: 2 at index (1,)\nGreatest relative difference: 0.5 at index (1,)",
           ember.tensor([1, 2, 3]), ember.tensor([1, 4, 3]))
    _fails(AssertionError, "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
           "Greatest absolute difference: 1 at index (1,)\nGreatest relative difference: 1.0 at index (1,)",
           ember.tensor([True, False]), ember.tensor([True, True]))
    _fails(
        AssertionError,
        "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 2 at index (0,)\nGreatest relative difference: 0.6666666865348816 at index (0,)",
        ember.tensor([1, 2], dtype=ember.uint8),
        ember.tensor([3, 2], dtype=ember.uint8),
    )


def test_given_tolerances_are_quoted():
    _fails(AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
           "Greatest absolute difference: 0.5 at index (1,) (up to 0.1 allowed)\n"
           "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 0 allowed)",
           ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.5]), atol=0.1, rtol=0)


def test_nan_is_the_greatest_difference():
    _fails(AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\n"
           "Greatest absolute difference: nan at index (0,) (up to 1e-05 allowed)\n"
           "Greatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)",
           ember.tensor([1.0, 5.0]), ember.tensor([float("nan"), 2.0]))
    _fails(AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
           "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n"
           "Greatest relative difference: inf at index (0,) (up to 1.3e-06 allowed)",
           ember.tensor([1.0]), ember.tensor([0.0]))


def test_scalars_and_zero_dim_tensors():
    _fails(
        AssertionError,
        "Scalars are not close!\n\nExpected 1.5 but got 1.0.\n"
        "Absolute difference: 0.5 (up to 1e-07 allowed)\nRelative difference: 0.3333333333333333 (up to 1e-07 allowed)",
        1.0,
        1.5,
    )
    _fails(
        AssertionError,
        "Scalars are not equal!\n\nExpected 2 but got 1.\nAbsolute difference: 1\nRelative difference: 0.5",
        1,
        2,
    )
    _fails(AssertionError, "Scalars are not close!\n\nExpected 2.0 but got 1.0.\n"
           "Absolute difference: 1.0 (up to 1e-05 allowed)\nRelative difference: 0.5 (up to 1.3e-06 allowed)",
           ember.tensor(1.0), ember.tensor(2.0))
    _fails(AssertionError, "Scalars are not equal!\n\nExpected False but got True.\nAbsolute difference: 1\n"
           "Relative difference: inf", ember.tensor(True), ember.tensor(False))
    _fails(
        AssertionError,
        "Scalars are not close!\n\nExpected (1+2j) but got (1+1j).\n"
        "Absolute difference: 1.0 (up to 1e-07 allowed)\nRelative difference: 0.4472135954999579 (up to 1e-07 allowed)",
        1 + 1j,
        1 + 2j,
    )
    _fails(AssertionError, "The (d)types do not match: <class 'int'> != <class 'float'>.", 1, 1.0)


def test_attributes():
    _fails(AssertionError, "The values for attribute 'shape' do not match: ember.Size([1]) != ember.Size([2]).",
           ember.tensor([1.0]), ember.tensor([1.0, 2.0]))
    _fails(AssertionError, "The values for attribute 'dtype' do not match: ember.float32 != ember.float64.",
           ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64))
    _fails(AssertionError, "The values for attribute 'stride()' do not match: (1, 2) != (2, 1).",
           ember.ones(2, 2).t(), ember.ones(2, 2), check_stride=True)


def test_containers_name_the_failing_item():
    _fails(
        AssertionError,
        "Scalars are not close!\n\nExpected 3.0 but got 2.0.\n"
        "Absolute difference: 1.0 (up to 1e-05 allowed)\n"
        "Relative difference: 0.3333333333333333 (up to 1.3e-06 allowed)"
        "\n\nThe failure occurred for item [1]",
        [ember.tensor(1.0), ember.tensor(2.0)],
        [ember.tensor(1.0), ember.tensor(3.0)],
    )
    _fails(AssertionError, "The length of the sequences mismatch: 2 != 3", [1, 2], [1, 2, 3])
    _fails(AssertionError, "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['c']\n"
           "Additional keys in the actual mapping: ['b']", {"a": 1, "b": 2}, {"a": 1, "c": 2})
    with pytest.raises(AssertionError, match=re.escape("\n\nThe failure occurred for item ['a'][0]")):
        assert_close({"a": [ember.ones(2)]}, {"a": [ember.zeros(2)]})


def test_unsupported_pairs_and_usage_errors():
    _fails(TypeError, "No comparison pair was able to handle inputs of type <class 'str'> and <class 'str'>.",
           "a", "a")
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        assert_close(ember.tensor([1.0]), 1.0)
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        assert_close(ember.tensor([1.0]), np.array([1.0]))
    _fails(AssertionError, "None mismatch: None is not 1", None, 1)
    with pytest.raises(
        ValueError, match="Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."
    ):
        assert_close(ember.ones(1), ember.ones(1), rtol=0.1)
    with pytest.raises(TypeError, match="No comparison pair"):
        assert_close(ember.nn.Parameter(ember.ones(1)), ember.ones(1), allow_subclasses=False)
    assert_close(ember.nn.Parameter(ember.ones(1)), ember.ones(1))


def test_custom_message():
    _fails(AssertionError, "custom", ember.tensor([1.0]), ember.tensor([2.0]), msg="custom")
    with pytest.raises(AssertionError, match=r"^XTensor-likes are not close!"):
        assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.5]), msg=lambda m: "X" + m)


@pytest.mark.parametrize("dtype", [ember.bool, ember.uint8, ember.int8, ember.int64, ember.float16,
                                   ember.float32, ember.float64, ember.complex64])
def test_make_tensor_default_ranges(dtype):
    ember.manual_seed(0)
    x = make_tensor(4000, dtype=dtype, device="cpu")
    assert x.dtype == dtype and x.shape == (4000,)
    a = x.numpy()
    if dtype == ember.bool:
        assert set(np.unique(a)) == {False, True}
        return
    parts = [a.real, a.imag] if dtype.is_complex else [a]
    for p in parts:
        lo = 0 if dtype == ember.uint8 else -9
        if dtype.is_floating_point or dtype.is_complex:
            assert p.min() >= -9 and p.max() <= 9 and p.min() < -8 and p.max() > 8
        else:  # integers: low inclusive, high 10 exclusive
            assert p.min() == lo and p.max() == 9


def test_make_tensor_options():
    x = make_tensor(2, 3, dtype=ember.float32, device="cpu", noncontiguous=True)
    assert x.shape == (2, 3) and not x.is_contiguous()
    assert make_tensor((), dtype=ember.float32, device="cpu", noncontiguous=True).is_contiguous()
    assert make_tensor([2, 3], dtype=ember.float32, device="cpu").shape == (2, 3)
    y = make_tensor(2000, dtype=ember.int64, device="cpu", low=-1, high=2, exclude_zero=True)
    assert set(np.unique(y.numpy())) == {-1, 1}
    z = make_tensor(50, dtype=ember.float32, device="cpu", low=0, high=3)
    assert z.numpy().min() >= 0 and z.numpy().max() < 3
    assert (make_tensor(5, dtype=ember.float32, device="cpu", low=1, high=1).numpy() == 1).all()
    u = make_tensor(500, dtype=ember.uint8, device="cpu", low=-1000, high=1000)
    assert u.numpy().min() >= 0
    g = make_tensor(3, dtype=ember.float64, device="cpu", requires_grad=True)
    assert g.requires_grad and g.is_leaf


@pytest.mark.parametrize("kw,kind,text", [
    (dict(dtype=ember.int32, requires_grad=True), ValueError,
     "`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype=ember.int32"),
    (dict(dtype=ember.uint8, low=3, high=1), ValueError, "`low` must be less than `high`, but got 3 >= 1"),
    (dict(dtype=ember.int32, low=1, high=1), ValueError, "`low` must be less than `high`, but got 1 >= 1"),
    (dict(dtype=ember.uint8, low=float("nan")), ValueError,
     "`low` and `high` cannot be NaN, but got low=nan and high=10"),
    (dict(dtype=ember.float32, low=float("inf")), ValueError, "`low` must be less than `high`, but got inf >= 9"),
])
def test_make_tensor_refuses(kw, kind, text):
    with pytest.raises(kind) as info:
        make_tensor(5, device="cpu", **kw)
    assert str(info.value) == text


def test_make_tensor_needs_dtype_and_device():
    with pytest.raises(TypeError, match="dtype"):
        make_tensor(2, device="cpu")
    with pytest.raises(TypeError, match="device"):
        make_tensor(2, dtype=ember.float32)
