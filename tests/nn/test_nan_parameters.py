"""NaN and infinite parameters that slipped past `<`/`>` checks (issue 29's silent acceptance):
PyTorch 2.13's exception types and messages, written out here."""
import math

import pytest

import ember
import ember.nn.functional as F

NAN, INF = math.nan, math.inf


def test_dropout_nan_probability():
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got nan"):
        F.dropout(ember.ones(3), NAN)
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        F.dropout(ember.ones(3), 1.5)


def test_loss_parameters_nan():
    x = ember.ones(3)
    with pytest.raises(RuntimeError, match="huber_loss does not support non-positive values for delta."):
        F.huber_loss(x, x, delta=NAN)
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values for beta."):
        F.smooth_l1_loss(x, x, beta=NAN)


@pytest.mark.parametrize("dtype, top, name", [(ember.float32, "3.40282e+38", "Float"),
                                              (ember.float64, "1.79769e+308", "Double"),
                                              (ember.float16, "65504", "Half"),
                                              (ember.bfloat16, "3.38953e+38", "BFloat16")])
def test_softshrink_lambda_range(dtype, top, name):
    x = ember.ones(3, dtype=dtype)
    for lambd, shown in ((-1.0, "-1"), (INF, "inf"), (NAN, "nan")):
        with pytest.raises(RuntimeError) as e:
            F.softshrink(x, lambd)
        assert str(e.value) == f"lambda must be in range [0, {top}] for input dtype {name}, but found {shown}"
    assert F.softshrink(x, 0.5).float().tolist() == [0.5, 0.5, 0.5]


def test_rrelu_bounds_must_be_finite():
    with pytest.raises(RuntimeError, match="rrelu: lower bound must be finite, got nan"):
        F.rrelu(ember.ones(3), NAN, 0.3, training=True)
    with pytest.raises(RuntimeError, match="rrelu: upper bound must be finite, got inf"):
        F.rrelu(ember.ones(3), 0.1, INF)
