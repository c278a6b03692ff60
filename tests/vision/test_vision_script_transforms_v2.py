"""ember.jit.script of transforms.v2: a v2 transform with a v1 counterpart scripts as that v1 transform
(__prepare_scriptable__, as torchvision), nested ones too, and the scripted module gives the v2 transform's
eager result on a plain image tensor under the same seed; the ones without a counterpart refuse clearly."""
import pytest

import ember
import embervision.transforms.v2 as v2
from ember import nn

CASES = {
    "RandomHorizontalFlip": lambda: v2.RandomHorizontalFlip(),
    "RandomVerticalFlip": lambda: v2.RandomVerticalFlip(0.7),
    "Resize": lambda: v2.Resize([10, 12], antialias=False),
    "CenterCrop": lambda: v2.CenterCrop(10),
    "Pad": lambda: v2.Pad([1, 2], fill=4, padding_mode="constant"),
    "RandomCrop": lambda: v2.RandomCrop(12, padding=2),
    "RandomResizedCrop": lambda: v2.RandomResizedCrop(10, antialias=False),
    "RandomAffine": lambda: v2.RandomAffine(15, translate=(0.1, 0.1)),
    "RandomRotation": lambda: v2.RandomRotation(25),
    "ColorJitter": lambda: v2.ColorJitter(0.3, 0.3, 0.3, 0.05),
    "ToDtype_scaled": lambda: v2.ToDtype(ember.float32, scale=True),
    "Compose": lambda: v2.Compose([v2.RandomCrop(12), v2.RandomHorizontalFlip(), v2.ToDtype(ember.float32, scale=True),
                                   v2.Normalize([0.5] * 3, [0.2] * 3)]),
    "RandomApply": lambda: v2.RandomApply([v2.RandomVerticalFlip(1.0)], p=0.5),
    "RandomChoice": lambda: v2.RandomChoice([v2.RandomVerticalFlip(1.0), v2.CenterCrop(8)]),
    "RandomOrder": lambda: v2.RandomOrder([v2.Pad([2, 0, 0, 0]), v2.CenterCrop([16, 15])]),
}


def image():
    gen = ember.Generator().manual_seed(1)
    return (ember.rand(2, 3, 16, 16, generator=gen) * 255).round().to(ember.uint8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_scripted_v2_transform_equals_eager_v2(name):
    x = image()
    for seed in range(4):
        transform = CASES[name]()
        ember.manual_seed(seed)
        want = transform(x)
        scripted = ember.jit.script(nn.Sequential(CASES[name]()))
        ember.manual_seed(seed)
        got = scripted(x)
        assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
        ember.testing.assert_close(got, want, rtol=0, atol=0)


def test_v2_transforms_without_a_v1_counterpart_do_not_script():
    with pytest.raises(NotImplementedError, match="ToDtype has no scriptable v1 counterpart"):
        ember.jit.script(v2.ToDtype(ember.float32))
    with pytest.raises(ember.jit.NotSupportedError, match=r"\*args is not supported"):
        ember.jit.script(v2.ToImage())  # a sample of any structure: outside the script language
