"""mse_loss, l1_loss and huber_loss take weight= as PyTorch 2.13 does: a weight of another size than the input is a
ValueError; "mean" is sum(w * loss) / sum(w) for mse and l1 (the values are checked in tests/opdb's OpInfos)."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F


@pytest.mark.parametrize("loss", [F.mse_loss, F.l1_loss, F.huber_loss])
def test_weight_of_another_size_is_a_value_error(loss):
    x, y = ember.ones(3, 4), ember.zeros(3, 4)
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        loss(x, y, weight=ember.ones(4))


def test_mse_weighted_mean_divides_by_the_weights():
    x, y, w = ember.tensor([1.0, 3.0]), ember.tensor([0.0, 0.0]), ember.tensor([1.0, 3.0])
    np.testing.assert_allclose(F.mse_loss(x, y, weight=w).item(), (1 * 1 + 3 * 9) / 4)
    np.testing.assert_allclose(F.l1_loss(x, y, weight=w).item(), (1 * 1 + 3 * 3) / 4)
