"""The shared layers: FrozenBatchNorm2d, Conv2dNormActivation, SqueezeExcitation, StochasticDepth,
DropBlock, FeaturePyramidNetwork (+ extra blocks) and MultiScaleRoIAlign, checked against formulas."""

from collections import OrderedDict

import numpy as np
import pytest

import ember
from ember import nn
from embervision import ops


def test_frozen_batchnorm_is_eval_batchnorm_and_loads_its_checkpoint():
    rng = np.random.default_rng(0)
    bn = nn.BatchNorm2d(4)
    with ember.no_grad():
        for t in (bn.weight, bn.bias, bn.running_mean):
            t.copy_(ember.tensor(rng.normal(size=4).astype(np.float32)))
        bn.running_var.copy_(ember.tensor(rng.uniform(0.5, 2, size=4).astype(np.float32)))
    frozen = ops.FrozenBatchNorm2d(4)
    frozen.load_state_dict(bn.state_dict())  # num_batches_tracked is dropped, not unexpected
    x = ember.tensor(rng.normal(size=(2, 4, 3, 3)).astype(np.float32))
    np.testing.assert_allclose(frozen(x).numpy(), bn.eval()(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert list(dict(frozen.named_parameters())) == []
    assert repr(frozen) == "FrozenBatchNorm2d(4, eps=1e-05)"


def test_conv_norm_activation_layout():
    block = ops.Conv2dNormActivation(3, 8, kernel_size=3, stride=2)
    assert [type(m) for m in block] == [nn.Conv2d, nn.BatchNorm2d, nn.ReLU]
    assert block[0].padding == (1, 1) and block[0].bias is None and block.out_channels == 8
    plain = ops.Conv2dNormActivation(3, 8, kernel_size=5, dilation=2, norm_layer=None, activation_layer=None)
    assert len(plain) == 1 and plain[0].padding == (4, 4) and plain[0].bias is not None
    assert sorted(dict(block.state_dict())) == ["0.weight", "1.bias", "1.num_batches_tracked", "1.running_mean",
                                                "1.running_var", "1.weight"]


def test_squeeze_excitation_formula():
    se = ops.SqueezeExcitation(6, 2)
    x = ember.randn(2, 6, 4, 4)
    pooled = x.mean((2, 3), keepdim=True)
    hidden = ember.relu(ember.nn.functional.conv2d(pooled, se.fc1.weight, se.fc1.bias))
    scale = ember.sigmoid(ember.nn.functional.conv2d(hidden, se.fc2.weight, se.fc2.bias))
    np.testing.assert_allclose(se(x).detach().numpy(), (x * scale).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_stochastic_depth_rows_are_dropped_or_rescaled():
    ember.manual_seed(0)
    x = ember.ones(400, 3)
    out = ops.stochastic_depth(x, 0.25, "row")
    rows = out[:, 0].numpy()
    assert np.all(np.isclose(rows, 0.0) | np.isclose(rows, 1 / 0.75))
    assert (out == out[:, :1]).all()  # a whole row shares its fate
    assert 0.15 < (rows == 0).mean() < 0.35
    batch = ops.stochastic_depth(x, 0.5, "batch")
    assert len(set(batch.flatten().tolist())) == 1
    assert ops.stochastic_depth(x, 0.5, "row", training=False) is x
    with pytest.raises(ValueError, match="drop probability has to be between 0 and 1, but got 1.5"):
        ops.stochastic_depth(x, 1.5, "row")
    with pytest.raises(ValueError, match="mode has to be either 'batch' or 'row', but got col"):
        ops.StochasticDepth(0.1, "col")(x)


def test_drop_block_drops_square_blocks_and_rescales():
    ember.manual_seed(0)
    x = ember.ones(2, 3, 16, 16)
    out = ops.drop_block2d(x, 0.2, 3)
    values = out.numpy()
    kept = values != 0
    scale = values[kept][0]
    np.testing.assert_allclose(values[kept], scale)  # one rescale factor for every kept value
    np.testing.assert_allclose(scale, kept.size / kept.sum(), rtol=1e-4)
    # Every dropped pixel lies in a fully dropped 3x3 block (clipped at the border).
    for n, c, i, j in zip(*np.nonzero(~kept)):
        blocks = [~kept[n, c, max(a, 0):a + 3, max(b, 0):b + 3].any()
                  for a in range(i - 2, i + 1) for b in range(j - 2, j + 1)]
        assert any(blocks)
    even = ops.drop_block2d(ember.ones(1, 1, 4, 4), 0.5, 6)  # block_size clipped to 4, even
    assert tuple(even.shape) == (1, 1, 4, 4)
    assert ops.DropBlock2d(0.2, 3).eval()(x) is x
    out3 = ops.DropBlock3d(0.3, 2)(ember.ones(1, 2, 6, 6, 6))
    assert (out3 == 0).any() and tuple(out3.shape) == (1, 2, 6, 6, 6)
    with pytest.raises(ValueError, match="input should be 4 dimensional. Got 3 dimensions."):
        ops.drop_block2d(ember.ones(2, 3, 4), 0.1, 3)
    assert repr(ops.DropBlock2d(0.1, 7)) == "DropBlock2d(p=0.1, block_size=7, inplace=False)"


def test_feature_pyramid_network_top_down_sum():
    fpn = ops.FeaturePyramidNetwork([4, 8], 5, extra_blocks=ops.feature_pyramid_network.LastLevelMaxPool())
    feats = OrderedDict([("a", ember.randn(1, 4, 8, 8)), ("b", ember.randn(1, 8, 4, 4))])
    out = fpn(feats)
    assert list(out) == ["a", "b", "pool"]
    assert [tuple(v.shape) for v in out.values()] == [(1, 5, 8, 8), (1, 5, 4, 4), (1, 5, 2, 2)]
    F = ember.nn.functional
    inner_b = fpn.inner_blocks[1](feats["b"])
    inner_a = fpn.inner_blocks[0](feats["a"]) + F.interpolate(inner_b, size=(8, 8), mode="nearest")
    np.testing.assert_allclose(out["a"].detach().numpy(), fpn.layer_blocks[0](inner_a).detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(out["pool"].detach().numpy(), out["b"].detach().numpy()[:, :, ::2, ::2])
    assert sorted(fpn.state_dict()) == sorted(f"{k}_blocks.{i}.0.{p}" for k in ("inner", "layer") for i in (0, 1)
                                              for p in ("weight", "bias"))
    p6p7 = ops.FeaturePyramidNetwork([4, 8], 8, extra_blocks=ops.feature_pyramid_network.LastLevelP6P7(8, 8))
    assert list(p6p7(feats)) == ["a", "b", "p6", "p7"]
    with pytest.raises(ValueError, match="in_channels=0 is currently not supported"):
        ops.FeaturePyramidNetwork([0, 4], 5)


def test_multiscale_roi_align_picks_levels_by_box_size():
    pooler = ops.MultiScaleRoIAlign(["p2", "p3"], 2, 2)
    feats = OrderedDict([("p2", ember.randn(1, 3, 16, 16)), ("p3", ember.randn(1, 3, 8, 8)), ("x", ember.ones(1))])
    # image 64x64: p2 has scale 1/4 (level 2), p3 1/8 (level 3); a 224-pixel box maps to level 4 -> clamped to 3.
    boxes = [ember.tensor([[0.0, 0, 8, 8], [0, 0, 224, 224], [4, 4, 40, 30]])]
    out = pooler(feats, boxes, [(64, 64)])
    assert tuple(out.shape) == (3, 3, 2, 2)
    small = ops.roi_align(feats["p2"], [boxes[0][:1]], 2, 0.25, 2)
    large = ops.roi_align(feats["p3"], [boxes[0][1:2]], 2, 0.125, 2)
    np.testing.assert_allclose(out[0:1].numpy(), small.numpy())
    np.testing.assert_allclose(out[1:2].numpy(), large.numpy())
    assert repr(pooler) == "MultiScaleRoIAlign(featmap_names=['p2', 'p3'], output_size=(2, 2), sampling_ratio=2)"
