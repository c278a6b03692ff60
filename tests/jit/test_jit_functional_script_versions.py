"""The script versions of ember.nn.functional (ember/jit/_builtins_*.py) against the eager functions on
argument forms the module walk does not reach: each case is a scripted function calling F.<name> and the
same function run eagerly (the eager function is the reference)."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F


def interp_nearest_exact(x):
    return F.interpolate(x, scale_factor=1.7, mode="nearest-exact")


def interp_bicubic(x):
    return F.interpolate(x, size=[5, 7], mode="bicubic", align_corners=False)


def interp_linear_corners(x):
    return F.interpolate(x[0], scale_factor=2.5, mode="linear", align_corners=True)


def interp_trilinear(x):
    return F.interpolate(x.unsqueeze(2), size=[2, 5, 3], mode="trilinear")


def interp_area(x):
    return F.interpolate(x, size=[2, 3], mode="area")


def bag_sum_weighted(x, idx, offsets):
    w = x.reshape([-1])[:8].abs()
    return F.embedding_bag(idx, x.reshape([-1, 3])[:10], offsets, mode="sum", per_sample_weights=w)


def bag_max_2d_padding(x, idx):
    return F.embedding_bag(idx, x.reshape([-1, 3])[:10], mode="max", padding_idx=0)


def bag_mean_last_offset(x, idx, offsets):
    return F.embedding_bag(idx, x.reshape([-1, 3])[:10], offsets, include_last_offset=True)


def pad_negative_constant(x):
    return F.pad(x, [-1, 2, 1, -2], value=3.5)


def pad_reflect_replicate(x):
    return F.pad(F.pad(x.unsqueeze(0), [2, 1], mode="reflect"), [1, 1, 2, 0], mode="replicate")


def pad_circular(x):
    return F.pad(x.unsqueeze(0), [1, 2, 2, 1], mode="circular")


def cross_entropy_probabilities(x, weight):
    target = x.flip([1]).softmax(1)
    return F.cross_entropy(x, target, weight=weight, label_smoothing=0.2)


def cross_entropy_ignore_index(x, target):
    return F.cross_entropy(x, target, ignore_index=5, reduction="sum", label_smoothing=0.1)


def losses_legacy_reductions(x, labels, classes, weight):
    y = x.flip([0])
    return [F.mse_loss(x, y, reduce=False), F.l1_loss(x, y, size_average=False),
            F.smooth_l1_loss(x, y, beta=0.0), F.huber_loss(x, y, weight=y.abs()),
            F.kl_div(x.log_softmax(1), y.softmax(1)), F.poisson_nll_loss(x, y.abs(), full=True),
            F.multilabel_margin_loss(x, labels), F.multi_margin_loss(x, classes, weight=weight)]


def fold_unfold_strided(x):
    cols = F.unfold(x, (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))
    return F.fold(cols, (4, 6), (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))


def lp_pool_ceil(x):
    return F.lp_pool2d(x.abs() + 0.1, 3.0, (2, 3), stride=(1, 2), ceil_mode=True)


def activations(x, slope):
    return [F.glu(x, 1), F.relu6(x * 8), F.selu(x), F.softmin(x, 1), F.rrelu(x, 0.2, 0.4),
            F.prelu(x, slope), F.pixel_unshuffle(F.pixel_shuffle(x.reshape([1, 24, 1, 1]), 2), 2),
            F.local_response_norm(x.reshape([1, 4, 6]), 3, alpha=0.1), F.rms_norm(x, [6]),
            F.alpha_dropout(x, 0.3, True), F.feature_alpha_dropout(x.reshape([2, 2, 6]), 0.3, True),
            F.dropout2d(x.reshape([1, 4, 2, 3]), 0.5, True)]


def ctc_concatenated_targets(x, targets, input_lengths, target_lengths):
    lp = x.reshape([4, 2, 3]).log_softmax(2)
    return [F.ctc_loss(lp, targets, input_lengths, target_lengths, reduction="none"),
            F.ctc_loss(lp, targets, input_lengths, target_lengths, blank=2, reduction="sum", zero_infinity=True)]


CASES = [ctc_concatenated_targets, interp_nearest_exact, interp_bicubic, interp_linear_corners, interp_trilinear,
         interp_area, bag_sum_weighted, bag_max_2d_padding, bag_mean_last_offset, pad_negative_constant,
         pad_reflect_replicate, pad_circular, cross_entropy_probabilities, cross_entropy_ignore_index,
         losses_legacy_reductions, fold_unfold_strided, lp_pool_ceil, activations]
EXTRA = {  # the arguments after x (scripted code builds no tensors from Python lists)
    # the second sample's 4 repeated labels need 7 steps, it has 3: an infinite loss (zeroed by zero_infinity)
    "ctc_concatenated_targets": lambda: (ember.tensor([1, 1, 1, 1, 1, 1]), ember.tensor([4, 3]),
                                         ember.tensor([2, 4])),
    "bag_sum_weighted": lambda: (ember.tensor([1, 2, 4, 5, 4, 3, 2, 7]), ember.tensor([0, 2, 2, 7])),
    "bag_max_2d_padding": lambda: (ember.tensor([[1, 0, 4], [0, 0, 0], [3, 3, 2]]),),
    "bag_mean_last_offset": lambda: (ember.tensor([1, 2, 4, 5, 4, 3, 2, 7]), ember.tensor([0, 3, 5, 6])),
    "cross_entropy_probabilities": lambda: (ember.tensor([1.0, 2.0, 0.5, 1.5, 1.0, 1.0]),),
    "cross_entropy_ignore_index": lambda: (ember.tensor([0, 5, 2, 1]),),
    "losses_legacy_reductions": lambda: (ember.tensor([[3, 0, -1, 1, 2, 0]] * 4), ember.tensor([0, 5, 2, 1]),
                                         ember.arange(6).to(ember.float32)),
    "activations": lambda: (ember.tensor([0.25]),),
}


def _flat(x):
    return [y for item in x for y in _flat(item)] if isinstance(x, (list, tuple)) else [x]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_script_version_equals_eager(fn):
    ember.manual_seed(0)
    x = ember.randn(1, 4, 4, 6) if fn.__name__.startswith(("interp", "fold", "lp_pool")) else ember.randn(4, 6)
    args = (x,) + EXTRA.get(fn.__name__, tuple)()
    scripted = ember.jit.script(fn)
    ember.manual_seed(7)
    want = _flat(fn(*args))
    ember.manual_seed(7)
    got = _flat(scripted(*args))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_script_versions_raise_as_eager():
    def bad_pad(x):
        return F.pad(x, [1, 2, 3])

    def bad_glu(x):
        return F.glu(x, 0)

    x = ember.randn(3, 4)
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        ember.jit.script(bad_pad)(x)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 0 is size 3"):
        ember.jit.script(bad_glu)(x)
