"""Image-model mappings against onnxruntime: group/instance norm, pixel (un)shuffle (PyTorch's
super-resolution example model, which its ONNX tutorial exports), interpolate's modes."""
import pytest
from onnx_test_utils import assert_matches, export

import ember
import ember.nn as nn
import ember.nn.functional as F


@pytest.fixture(autouse=True)
def _seed():
    ember.manual_seed(0)


class SuperResolution(nn.Module):
    """The model of PyTorch's super_resolution example: convolutions, then pixel_shuffle by the upscale."""

    def __init__(self, upscale_factor=3):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5, padding=2)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
        self.conv3 = nn.Conv2d(16, upscale_factor ** 2, 3, padding=1)
        self.shuffle = nn.PixelShuffle(upscale_factor)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        return self.shuffle(self.conv3(x))


def test_super_resolution_with_dynamic_batch():
    model = SuperResolution().eval()
    exported = export(model, (ember.randn(1, 1, 8, 8),), input_names=["x"], dynamic_axes={"x": {0: "n"}})
    x = ember.randn(3, 1, 8, 8)
    assert_matches(exported.run(x), model(x))


def test_group_and_instance_norm_and_unshuffle():
    model = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.GroupNorm(4, 8), nn.SiLU(), nn.PixelUnshuffle(2),
                          nn.InstanceNorm2d(32, affine=True), nn.GroupNorm(2, 32, affine=False)).eval()
    model[4].weight.data.uniform_(0.5, 1.5)
    model[4].bias.data.normal_()
    x = ember.randn(2, 4, 6, 6)
    assert_matches(export(model, (x,)).run(x), model(x), atol=1e-4)


def test_instance_norm_with_running_stats_in_eval():
    norm = nn.InstanceNorm1d(3, track_running_stats=True)
    norm(ember.randn(4, 3, 10) * 2 + 1)  # training step: running statistics move
    norm.eval()
    x = ember.randn(2, 3, 7)
    assert_matches(export(norm, (x,)).run(x), norm(x))


@pytest.mark.parametrize("kwargs", [dict(scale_factor=2, mode="nearest"), dict(size=(7, 5), mode="nearest"),
                                    dict(scale_factor=2, mode="bilinear"),
                                    dict(size=(9, 4), mode="bilinear", align_corners=True),
                                    dict(scale_factor=1.5, mode="bilinear", align_corners=False),
                                    dict(size=(8, 6), mode="bicubic"), dict(size=(5, 7), mode="nearest-exact")])
def test_interpolate_modes(kwargs):
    model = nn.Sequential(nn.Conv2d(2, 2, 1))
    model.add_module("up", nn.Upsample(**kwargs))
    model.eval()
    x = ember.randn(1, 2, 4, 6)
    assert_matches(export(model, (x,)).run(x), model(x), atol=1e-4)
