"""PyTorch's deprecated argument orders of add and sub (torch.add(input, alpha, other), Tensor.add(alpha, other),
Tensor.add_(alpha, other), the same for sub): they compute input + alpha * other (input - alpha * other) and warn
once per process, with PyTorch 2.13's message (written out here), for all those forms together."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember

A, B = np.array([1.0, -2.0, 3.5]), np.array([0.5, 4.0, -1.0])


@pytest.fixture
def ab():
    return ember.tensor(A), ember.tensor(B)


@pytest.mark.parametrize("form", ["function", "method", "inplace", "out"])
@pytest.mark.parametrize("name,sign", [("add", 1), ("sub", -1)])
def test_alpha_first_order_computes_input_plus_alpha_other(ab, form, name, sign):
    a, b = ab
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if form == "function":
            got = getattr(ember, name)(a, 3, b)
        elif form == "method":
            got = getattr(a, name)(3, b)
        elif form == "inplace":
            got = getattr(a, name + "_")(3, b)
            assert got is a
        else:
            out = ember.empty(3, dtype=ember.float64)
            got = getattr(ember, name)(a, 3, b, out=out)
            np.testing.assert_array_equal(out.numpy(), A + sign * 3 * B)
    np.testing.assert_array_equal(got.numpy(), A + sign * 3 * B)


def test_other_may_be_a_number_and_the_current_order_is_unchanged(ab):
    a, b = ab
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(ember.add(a, 2, 3).numpy(), A + 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning for the current forms
        np.testing.assert_array_equal(ember.add(a, b, alpha=2).numpy(), A + 2 * B)
        np.testing.assert_array_equal(a.sub(b, alpha=2).numpy(), A - 2 * B)
    with pytest.raises(TypeError):
        ember.add(2, 3, a)  # the deprecated order's input is a tensor


_PROBE = """
import warnings, ember
a, b = ember.ones(2), ember.ones(2)
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    {first}
    a.sub_(2, b); ember.add(a, 2, b)
for w in seen:
    print(w.category.__name__ + ":" + repr(str(w.message)))
"""


@pytest.mark.parametrize("first,message", [
    ("ember.add(a, 2, b)", "This overload of add is deprecated:\n\tadd(Tensor input, Number alpha, Tensor other, *, "
                           "Tensor out = None)\nConsider using one of the following signatures instead:\n\tadd(Tensor "
                           "input, Tensor other, *, Number alpha = 1, Tensor out = None)"),
    ("a.add_(2, b)", "This overload of add_ is deprecated:\n\tadd_(Number alpha, Tensor other)\nConsider using one of "
                     "the following signatures instead:\n\tadd_(Tensor other, *, Number alpha = 1)"),
    ("a.sub(2, b)", "This overload of sub is deprecated:\n\tsub(Number alpha, Tensor other)\nConsider using one of "
                    "the following signatures instead:\n\tsub(Tensor other, *, Number alpha = 1)")])
def test_the_first_deprecated_call_warns_once_for_the_process(first, message):
    out = subprocess.run([sys.executable, "-c", _PROBE.format(first=first)], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["UserWarning:" + repr(message)]


def test_a_warning_made_an_error_raises():
    code = ("import warnings, ember\nwarnings.simplefilter('error')\ntry:\n    ember.ones(2).add(2, ember.ones(2))\n"
            "except UserWarning as e:\n    print('raised', str(e).splitlines()[0])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "raised This overload of add is deprecated:"
