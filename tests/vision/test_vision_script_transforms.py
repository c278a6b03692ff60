"""ember.jit.script of embervision's v1 transforms: every scriptable transform, scripted alone and inside
nn.Sequential / Compose / RandomChoice / RandomApply / RandomOrder, gives the eager result on uint8 and
float batches (random ones under the same seed, several seeds); the functional API scripts inside typed
functions; a scripted pipeline saves and reloads in a fresh interpreter that imports only ember and
embervision."""
import subprocess
import sys
from typing import List

import pytest

import ember
import embervision.transforms as T
import embervision.transforms.functional as F
from ember import nn

BI = T.InterpolationMode.BILINEAR
NEAREST = T.InterpolationMode.NEAREST

CASES = {  # name -> factory of the transform (torchvision's scriptable v1 transforms, typical arguments)
    "ConvertImageDtype": lambda: T.ConvertImageDtype(ember.float32),
    "Normalize": lambda: T.Normalize([0.5, 0.4, 0.3], [0.2, 0.3, 0.4]),
    "Resize_short_side": lambda: T.Resize(10),
    "Resize_hw_nearest": lambda: T.Resize([9, 14], interpolation=NEAREST),
    "Resize_bicubic_max_size": lambda: T.Resize(8, interpolation=T.InterpolationMode.BICUBIC, max_size=12),
    "CenterCrop": lambda: T.CenterCrop(10),
    "CenterCrop_larger_pads": lambda: T.CenterCrop([20, 15]),
    "Pad_constant": lambda: T.Pad([1, 2], fill=3),
    "Pad_reflect": lambda: T.Pad(2, padding_mode="reflect"),
    "Pad_edge": lambda: T.Pad([1, 2, 3, 0], padding_mode="edge"),
    "Pad_symmetric": lambda: T.Pad(3, padding_mode="symmetric"),
    "RandomCrop": lambda: T.RandomCrop(10, padding=2),
    "RandomCrop_pad_if_needed": lambda: T.RandomCrop([18, 20], pad_if_needed=True, padding_mode="edge"),
    "RandomHorizontalFlip": lambda: T.RandomHorizontalFlip(),
    "RandomVerticalFlip": lambda: T.RandomVerticalFlip(),
    "RandomResizedCrop": lambda: T.RandomResizedCrop(12),
    "RandomResizedCrop_nearest": lambda: T.RandomResizedCrop([10, 8], scale=(0.5, 1.0), interpolation=NEAREST),
    "FiveCrop": lambda: T.FiveCrop(8),
    "TenCrop": lambda: T.TenCrop(8, vertical_flip=True),
    "LinearTransformation": lambda: T.LinearTransformation(ember.eye(3 * 16 * 16) * 0.5, ember.zeros(3 * 16 * 16)),
    "ColorJitter": lambda: T.ColorJitter(0.4, 0.4, 0.4, 0.1),
    "ColorJitter_brightness_only": lambda: T.ColorJitter(brightness=0.5),
    "RandomRotation": lambda: T.RandomRotation(30),
    "RandomRotation_expand_fill": lambda: T.RandomRotation([-40, 40], interpolation=BI, expand=True, fill=7),
    "RandomAffine": lambda: T.RandomAffine(20, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5),
    "RandomAffine_bilinear_fill": lambda: T.RandomAffine(10, shear=[-5, 5, -5, 5], interpolation=BI, fill=[1, 2, 3]),
    "RandomPerspective": lambda: T.RandomPerspective(0.4, p=1.0),
    "Grayscale": lambda: T.Grayscale(3),
    "RandomGrayscale": lambda: T.RandomGrayscale(0.5),
    "RandomErasing": lambda: T.RandomErasing(p=1.0, value=0),
    "RandomErasing_random": lambda: T.RandomErasing(p=1.0, value="random"),
    "GaussianBlur": lambda: T.GaussianBlur(5, sigma=(0.1, 2.0)),
    "RandomInvert": lambda: T.RandomInvert(),
    "RandomPosterize": lambda: T.RandomPosterize(3, p=1.0),
    "RandomSolarize": lambda: T.RandomSolarize(100, p=1.0),
    "RandomSolarize_float": lambda: T.RandomSolarize(0.4, p=1.0),
    "RandomAdjustSharpness": lambda: T.RandomAdjustSharpness(2, p=1.0),
    "RandomAutocontrast": lambda: T.RandomAutocontrast(p=1.0),
    "RandomEqualize": lambda: T.RandomEqualize(p=1.0),
    "AutoAugment_imagenet": lambda: T.AutoAugment(),
    "AutoAugment_cifar10_fill": lambda: T.AutoAugment(T.AutoAugmentPolicy.CIFAR10, fill=[10, 20, 30]),
    "AutoAugment_svhn_bilinear": lambda: T.AutoAugment(T.AutoAugmentPolicy.SVHN, interpolation=BI),
    "RandAugment": lambda: T.RandAugment(),
    "RandAugment_3ops": lambda: T.RandAugment(num_ops=3, magnitude=20, fill=5),
    "TrivialAugmentWide": lambda: T.TrivialAugmentWide(),
    "AugMix": lambda: T.AugMix(),
    "AugMix_not_all_ops": lambda: T.AugMix(severity=5, mixture_width=2, chain_depth=2, all_ops=False),
}
FLOAT_ONLY = {"Normalize", "LinearTransformation", "RandomErasing_random", "RandomSolarize_float"}
UINT8_ONLY = {"RandomPosterize", "RandomEqualize", "RandomSolarize", "AutoAugment_imagenet", "AutoAugment_cifar10_fill",
              "AutoAugment_svhn_bilinear", "RandAugment", "RandAugment_3ops", "TrivialAugmentWide", "AugMix",
              "AugMix_not_all_ops"}


def images(dtype):
    gen = ember.Generator().manual_seed(3)
    x = ember.rand(2, 3, 16, 16, generator=gen)
    return (x * 255).round().to(ember.uint8) if dtype == "uint8" else x


def assert_same(got, want):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    ember.testing.assert_close(got, want, rtol=0, atol=0)


def run_both(transform, x, seed):
    ember.manual_seed(seed)
    want = transform(x)
    scripted = ember.jit.script(transform)
    ember.manual_seed(seed)
    return scripted(x), want


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_scripted_transform_equals_eager(name, dtype):
    if (dtype == "uint8" and name in FLOAT_ONLY) or (dtype == "float32" and name in UINT8_ONLY):
        pytest.skip("the transform takes the other dtype")
    transform = CASES[name]()
    x = images(dtype)
    for seed in range(8 if name.startswith(("AutoAugment", "RandAugment", "Trivial", "AugMix")) else 4):
        got, want = run_both(transform, x, seed)
        assert_same(got, want)


def test_scripted_sequential_pipeline_equals_eager():
    pipeline = nn.Sequential(T.RandomResizedCrop(12), T.RandomHorizontalFlip(), T.ColorJitter(0.3, 0.3, 0.3),
                             T.ConvertImageDtype(ember.float32), T.Normalize([0.5] * 3, [0.25] * 3))
    for seed in range(4):
        got, want = run_both(pipeline, images("uint8"), seed)
        assert_same(got, want)


def test_scripted_compose_random_choice_apply_and_order():
    flips = [T.RandomHorizontalFlip(1.0), T.RandomVerticalFlip(1.0), T.RandomInvert(1.0)]
    cases = [T.Compose([T.CenterCrop(12), T.RandomAffine(15), T.ConvertImageDtype(ember.float32)]),
             T.RandomChoice(flips, p=[0.2, 0.3, 0.5]), T.RandomApply(flips[:2], p=0.5),
             T.RandomOrder([T.Pad([2, 0, 0, 0]), T.CenterCrop([16, 15]), T.RandomHorizontalFlip(1.0)])]
    x = images("uint8")
    for transform in cases:
        outcomes = set()
        for seed in range(8):
            got, want = run_both(transform, x, seed)
            assert_same(got, want)
            outcomes.add(tuple(want.flatten().tolist()))
        if not isinstance(transform, T.Compose):  # the seeds reach different choices, so each branch is checked
            assert len(outcomes) > 1


def crop_then_blur(x: ember.Tensor, size: List[int], sigma: float) -> ember.Tensor:
    y = F.center_crop(x, size)
    y = F.gaussian_blur(y, [3, 3], [sigma, sigma])
    return F.adjust_contrast(F.rotate(y, 30.0, F.InterpolationMode.BILINEAR), 1.5)


def geometry(x: ember.Tensor, angle: float) -> ember.Tensor:
    y = F.affine(x, angle, [1, -2], 1.1, [3.0, 0.0])
    y = F.perspective(y, [[0, 0], [15, 0], [15, 15], [0, 15]], [[1, 2], [14, 0], [15, 13], [0, 14]])
    return F.resize(F.pad(y, [2, 1], padding_mode="reflect"), [12, 10])


@pytest.mark.parametrize("fn,args", [(crop_then_blur, ([11, 13], 0.8)), (geometry, (12.5,))])
def test_functional_api_scripts_inside_typed_functions(fn, args):
    scripted = ember.jit.script(fn)
    for dtype in ("uint8", "float32"):
        x = images(dtype)
        assert_same(scripted(x, *args), fn(x, *args))


def test_scripted_pipeline_saves_and_loads_in_a_fresh_interpreter(tmp_path):
    pipeline = nn.Sequential(T.RandomCrop(12, padding=2), T.RandomHorizontalFlip(), T.RandomRotation(20),
                             T.ConvertImageDtype(ember.float32), T.Normalize([0.5] * 3, [0.25] * 3))
    x = images("uint8")
    ember.manual_seed(5)
    want = pipeline(x)
    ember.jit.save(ember.jit.script(pipeline), str(tmp_path / "pipeline.pt"))
    ember.save({"x": x, "want": want}, str(tmp_path / "data.pt"))
    code = (
        "import sys, ember, embervision\n"
        "assert 'torch' not in sys.modules\n"
        f"d = ember.load({str(tmp_path / 'data.pt')!r})\n"
        f"m = ember.jit.load({str(tmp_path / 'pipeline.pt')!r})\n"
        "ember.manual_seed(5)\n"
        "got = m(d['x'])\n"
        "assert got.dtype == d['want'].dtype and tuple(got.shape) == tuple(d['want'].shape)\n"
        "assert bool((got == d['want']).all()), 'reloaded pipeline differs'\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"
