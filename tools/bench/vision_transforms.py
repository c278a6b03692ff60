"""Issue 23 speed target for embervision.transforms: Resize(224, antialias) + Normalize of a uint8
batch 32x3x256x256 as one tensor, against the PIL path per image (Pillow's resize, ToTensor, Normalize,
the way a torchvision 0.10 pipeline prepares images) in the same run; the plain (not antialiased) tensor resize
beside them, and PyTorch's antialiased uint8 interpolate + normalize when it is importable (PYTHONPATH pointing at a
PyTorch install)."""
from __future__ import annotations

import numpy as np

import ember

from .runner import Case, best_of, torch

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def _batch():
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, (32, 3, 256, 256), dtype=np.uint8)


def _tensor_path(antialias):
    def measure():
        import embervision.transforms as T
        x = ember.from_numpy(_batch())
        pipeline = T.Compose([T.Resize(224, antialias=antialias), T.ConvertImageDtype(ember.float32),
                              T.Normalize(MEAN, STD)])
        return best_of(lambda: pipeline(x)) * 1e3
    return measure


def _torch_path():
    """PyTorch's own antialiased uint8 resize (F.interpolate, as torchvision's v2 Resize calls it) + normalize."""
    def measure():
        x = torch.from_numpy(_batch())
        mean = torch.tensor(MEAN).view(1, 3, 1, 1)
        std = torch.tensor(STD).view(1, 3, 1, 1)

        def run():
            y = torch.nn.functional.interpolate(x, size=[224, 224], mode="bilinear", antialias=True)
            return (y.to(torch.float32) / 255 - mean) / std
        return best_of(run) * 1e3
    return measure


def _pil_path():
    from PIL import Image
    import embervision.transforms as T
    images = [Image.fromarray(a.transpose(1, 2, 0)) for a in _batch()]
    pipeline = T.Compose([T.Resize(224), T.ToTensor(), T.Normalize(MEAN, STD)])
    return lambda: best_of(lambda: [pipeline(im) for im in images]) * 1e3


def cases() -> list[Case]:
    impls = {"ember": _tensor_path(True), "pil_per_image": _pil_path(), "ember_no_antialias": _tensor_path(False)}
    if torch is not None:
        impls["torch"] = _torch_path()
    return [
        Case("vision Resize(224)+Normalize uint8 32x3x256x256", "ms", False, impls,
             "< PIL path per image", lambda e, p: e < p["pil_per_image"]),
    ]
