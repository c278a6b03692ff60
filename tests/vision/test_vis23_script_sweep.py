"""The scripting sweep of issue 23: every transform class that embervision.transforms and .v2 export is either
scripted here (inside nn.Sequential, its output equal to the eager one under the same seed, then saved, and all of
them reloaded in one fresh interpreter that imports only ember and embervision and gives the same outputs) or
listed as unscriptable with the reason; a new transform fails the enumeration until it is one or the other."""
import inspect
import subprocess
import sys

import pytest

import ember
import embervision.transforms as T
import embervision.transforms.v2 as v2
from ember import nn

BI, BIC = T.InterpolationMode.BILINEAR, T.InterpolationMode.BICUBIC
FLIPS = [T.RandomHorizontalFlip(1.0), T.RandomVerticalFlip(1.0)]

V1 = {  # class name -> (factory, input dtype)
    "AugMix": (lambda: T.AugMix(), "uint8"),
    "AutoAugment": (lambda: T.AutoAugment(T.AutoAugmentPolicy.CIFAR10), "uint8"),
    "CenterCrop": (lambda: T.CenterCrop(10), "uint8"),
    "ColorJitter": (lambda: T.ColorJitter(0.4, 0.4, 0.4, 0.1), "float32"),
    "Compose": (lambda: T.Compose([T.CenterCrop(12), T.RandomHorizontalFlip()]), "uint8"),
    "ConvertImageDtype": (lambda: T.ConvertImageDtype(ember.float32), "uint8"),
    "FiveCrop": (lambda: T.FiveCrop(8), "uint8"),
    "GaussianBlur": (lambda: T.GaussianBlur(5, sigma=(0.1, 2.0)), "float32"),
    "Grayscale": (lambda: T.Grayscale(3), "uint8"),
    "LinearTransformation": (lambda: T.LinearTransformation(ember.eye(3 * 16 * 16) * 0.5, ember.zeros(3 * 16 * 16)),
                             "float32"),
    "Normalize": (lambda: T.Normalize([0.5, 0.4, 0.3], [0.2, 0.3, 0.4]), "float32"),
    "Pad": (lambda: T.Pad(2, padding_mode="reflect"), "uint8"),
    "RandAugment": (lambda: T.RandAugment(), "uint8"),
    "RandomAdjustSharpness": (lambda: T.RandomAdjustSharpness(2, p=1.0), "uint8"),
    "RandomAffine": (lambda: T.RandomAffine(20, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5, fill=3), "uint8"),
    "RandomApply": (lambda: T.RandomApply(FLIPS, p=0.5), "uint8"),
    "RandomAutocontrast": (lambda: T.RandomAutocontrast(p=1.0), "float32"),
    "RandomChoice": (lambda: T.RandomChoice(FLIPS), "uint8"),
    "RandomCrop": (lambda: T.RandomCrop(10, padding=2), "uint8"),
    "RandomEqualize": (lambda: T.RandomEqualize(p=1.0), "uint8"),
    "RandomErasing": (lambda: T.RandomErasing(p=1.0, value="random"), "float32"),
    "RandomGrayscale": (lambda: T.RandomGrayscale(0.5), "uint8"),
    "RandomHorizontalFlip": (lambda: T.RandomHorizontalFlip(), "uint8"),
    "RandomInvert": (lambda: T.RandomInvert(), "uint8"),
    "RandomOrder": (lambda: T.RandomOrder([T.Pad([2, 0, 0, 0]), T.CenterCrop([16, 15])]), "uint8"),
    "RandomPerspective": (lambda: T.RandomPerspective(0.4, p=1.0, interpolation=BI), "float32"),
    "RandomPosterize": (lambda: T.RandomPosterize(3, p=1.0), "uint8"),
    "RandomResizedCrop": (lambda: T.RandomResizedCrop(12, interpolation=BIC, antialias=True), "uint8"),
    "RandomRotation": (lambda: T.RandomRotation(30, interpolation=BI, expand=True), "float32"),
    "RandomSolarize": (lambda: T.RandomSolarize(100, p=1.0), "uint8"),
    "RandomVerticalFlip": (lambda: T.RandomVerticalFlip(), "uint8"),
    "Resize": (lambda: T.Resize(10, antialias=True), "uint8"),
    "TenCrop": (lambda: T.TenCrop(8, vertical_flip=True), "uint8"),
    "TrivialAugmentWide": (lambda: T.TrivialAugmentWide(), "uint8"),
}
V1_UNSCRIPTABLE = {  # as in torchvision: PIL images and Python callables are outside the script language
    "Lambda": "a Python callable", "PILToTensor": "PIL input", "ToPILImage": "PIL output", "ToTensor": "PIL input",
    "InterpolationMode": "an enum, not a transform", "AutoAugmentPolicy": "an enum, not a transform",
}
V2 = {
    "CenterCrop": (lambda: v2.CenterCrop(10), "uint8"),
    "ColorJitter": (lambda: v2.ColorJitter(0.3, 0.3, 0.3, 0.05), "uint8"),
    "Compose": (lambda: v2.Compose([v2.RandomCrop(12), v2.ToDtype(ember.float32, scale=True)]), "uint8"),
    "Normalize": (lambda: v2.Normalize([0.5] * 3, [0.2] * 3), "float32"),
    "Pad": (lambda: v2.Pad([1, 2], fill=4), "uint8"),
    "RandomAffine": (lambda: v2.RandomAffine(15, translate=(0.1, 0.1)), "uint8"),
    "RandomApply": (lambda: v2.RandomApply([v2.RandomVerticalFlip(1.0)], p=0.5), "uint8"),
    "RandomChoice": (lambda: v2.RandomChoice([v2.RandomVerticalFlip(1.0), v2.CenterCrop(8)]), "uint8"),
    "RandomCrop": (lambda: v2.RandomCrop(12, padding=2), "uint8"),
    "RandomHorizontalFlip": (lambda: v2.RandomHorizontalFlip(), "uint8"),
    "RandomOrder": (lambda: v2.RandomOrder([v2.Pad([2, 0, 0, 0]), v2.CenterCrop([16, 15])]), "uint8"),
    "RandomResizedCrop": (lambda: v2.RandomResizedCrop(10), "uint8"),
    "RandomRotation": (lambda: v2.RandomRotation(25), "uint8"),
    "RandomVerticalFlip": (lambda: v2.RandomVerticalFlip(0.7), "uint8"),
    "Resize": (lambda: v2.Resize([10, 12]), "uint8"),
    "ToDtype": (lambda: v2.ToDtype(ember.float32, scale=True), "uint8"),
}
# no scriptable v1 counterpart, as in torchvision (tests/vision/test_vision_script_transforms_v2.py)
V2_UNSCRIPTABLE = {
    "ClampBoundingBoxes": "boxes", "ConvertBoundingBoxFormat": "boxes", "CutMix": "labels and a batch",
    "MixUp": "labels and a batch", "ToImage": "any input structure", "Transform": "the base class",
    "InterpolationMode": "an enum, not a transform",
}


def _exported(mod):
    """The public classes the module offers (its own, not ones it imports from elsewhere)."""
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    return {n for n in names if inspect.isclass(getattr(mod, n))
            and getattr(mod, n).__module__.startswith("embervision.")}


@pytest.mark.parametrize("mod,covered,unscriptable", [(T, V1, V1_UNSCRIPTABLE), (v2, V2, V2_UNSCRIPTABLE)],
                         ids=["v1", "v2"])
def test_every_exported_transform_is_scripted_or_listed(mod, covered, unscriptable):
    exported = _exported(mod)
    assert exported - set(covered) - set(unscriptable) == set(), "transforms neither scripted here nor listed"
    assert set(covered) | set(unscriptable) <= exported, "names listed here that the module does not export"
    assert not set(covered) & set(unscriptable)


def _image(dtype):
    x = ember.rand(2, 3, 16, 16, generator=ember.Generator().manual_seed(3))
    return (x * 255).round().to(ember.uint8) if dtype == "uint8" else x


def _same(got, want):
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    ember.testing.assert_close(got, want, rtol=0, atol=0)


def test_every_scriptable_transform_scripts_saves_and_reloads(tmp_path):
    cases = [(f"v1_{n}", f, d) for n, (f, d) in V1.items()] + [(f"v2_{n}", f, d) for n, (f, d) in V2.items()]
    expected = {}
    for key, factory, dtype in cases:
        transform = factory()
        x = _image(dtype)
        ember.manual_seed(7)
        want = transform(x)
        scripted = ember.jit.script(nn.Sequential(factory()) if key.startswith("v2_") else transform)
        ember.manual_seed(7)
        _same(scripted(x), want)
        ember.jit.save(scripted, str(tmp_path / f"{key}.pt"))
        expected[key] = (x, want)
    ember.save(expected, str(tmp_path / "expected.pt"))
    code = (
        "import sys, ember, embervision\n"
        "assert 'torch' not in sys.modules\n"
        f"expected = ember.load({str(tmp_path / 'expected.pt')!r})\n"
        "def same(g, w):\n"
        "    if isinstance(w, (list, tuple)):\n"
        "        return len(g) == len(w) and all(same(a, b) for a, b in zip(g, w))\n"
        "    return g.dtype == w.dtype and g.shape == w.shape and bool((g == w).all())\n"
        "bad = []\n"
        "for key, (x, want) in expected.items():\n"
        f"    m = ember.jit.load({str(tmp_path)!r} + '/' + key + '.pt')\n"
        "    ember.manual_seed(7)\n"
        "    if not same(m(x), want):\n"
        "        bad.append(key)\n"
        "print('bad', bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "bad []"
