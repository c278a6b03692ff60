"""Antialiased resize scripts (issue 23): Resize / RandomResizedCrop with antialias=True (v1 and v2, whose default
it is) and F.resize / F.resized_crop on tensors, scripted, give the eager result to the level on uint8 and float
batches, bilinear and bicubic, in both of Pillow's pass orders; a scripted antialiased pipeline saves and reloads
in a fresh interpreter."""
import subprocess
import sys
from typing import List

import pytest

import ember
import embervision.transforms as T
import embervision.transforms.functional as F
import embervision.transforms.v2 as v2
from ember import nn

BI, BIC = T.InterpolationMode.BILINEAR, T.InterpolationMode.BICUBIC

CASES = {
    "Resize_bilinear": lambda: T.Resize(10, antialias=True),
    "Resize_bicubic_vertical_first": lambda: T.Resize([5, 20], interpolation=BIC, antialias=True),
    "Resize_bicubic_grow": lambda: T.Resize([31, 23], interpolation=BIC, antialias=True),
    "Resize_max_size": lambda: T.Resize(9, max_size=12, antialias=True),
    "RandomResizedCrop": lambda: T.RandomResizedCrop(12, antialias=True),
    "RandomResizedCrop_bicubic": lambda: T.RandomResizedCrop([10, 8], interpolation=BIC, antialias=True),
    "v2_Resize": lambda: v2.Resize([10, 12]),
    "v2_RandomResizedCrop": lambda: v2.RandomResizedCrop(10),
}


def images(dtype):
    gen = ember.Generator().manual_seed(3)
    x = ember.rand(2, 3, 24, 22, generator=gen)
    return (x * 255).round().to(ember.uint8) if dtype == "uint8" else x


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_scripted_antialiased_transform_equals_eager(name, dtype):
    x = images(dtype)
    for seed in range(3):
        ember.manual_seed(seed)
        want = CASES[name]()(x)
        scripted = ember.jit.script(nn.Sequential(CASES[name]()))
        ember.manual_seed(seed)
        got = scripted(x)
        assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
        ember.testing.assert_close(got, want, rtol=0, atol=0)


def resize_both(x: ember.Tensor, size: List[int]) -> List[ember.Tensor]:
    a = F.resize(x, size, T.InterpolationMode.BILINEAR, antialias=True)
    b = F.resized_crop(x, 2, 3, 15, 12, size, T.InterpolationMode.BICUBIC, antialias=True)
    return [a, b]


def test_functional_resize_scripts():
    scripted = ember.jit.script(resize_both)
    for dtype in ("uint8", "float32"):
        x = images(dtype)
        for size in ([7, 9], [30, 11]):
            for got, want in zip(scripted(x, size), resize_both(x, size)):
                ember.testing.assert_close(got, want, rtol=0, atol=0)


def test_scripted_antialiased_pipeline_saves_and_loads(tmp_path):
    pipeline = nn.Sequential(T.RandomResizedCrop(14, antialias=True), T.Resize(9, interpolation=BIC, antialias=True),
                             T.ConvertImageDtype(ember.float32), T.Normalize([0.5] * 3, [0.25] * 3))
    x = images("uint8")
    ember.manual_seed(5)
    want = pipeline(x)
    ember.jit.save(ember.jit.script(pipeline), str(tmp_path / "pipeline.pt"))
    ember.save({"x": x, "want": want}, str(tmp_path / "data.pt"))
    code = (
        "import sys, ember, embervision\n"
        f"d = ember.load({str(tmp_path / 'data.pt')!r})\n"
        f"m = ember.jit.load({str(tmp_path / 'pipeline.pt')!r})\n"
        "ember.manual_seed(5)\n"
        "got = m(d['x'])\n"
        "assert bool((got == d['want']).all()), 'reloaded pipeline differs'\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"
