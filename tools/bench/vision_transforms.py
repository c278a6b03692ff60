"""Issue 23 speed target for embervision.transforms: Resize(224, antialias) + Normalize of a uint8
batch 32x3x256x256 as one tensor, against the PIL path per image (Pillow's resize, ToTensor, Normalize,
the way a torchvision 0.10 pipeline prepares images) in the same run; and the plain (not antialiased)
tensor resize beside them."""
from __future__ import annotations

import numpy as np

import ember

from .runner import Case, best_of

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


def _pil_path():
    from PIL import Image
    import embervision.transforms as T
    images = [Image.fromarray(a.transpose(1, 2, 0)) for a in _batch()]
    pipeline = T.Compose([T.Resize(224), T.ToTensor(), T.Normalize(MEAN, STD)])
    return lambda: best_of(lambda: [pipeline(im) for im in images]) * 1e3


def cases() -> list[Case]:
    return [
        Case("Resize(224)+Normalize uint8 32x3x256x256", "ms", False,
             {"ember": _tensor_path(True), "pil_per_image": _pil_path(), "ember_no_antialias": _tensor_path(False)},
             "< PIL path per image", lambda e, p: e < p["pil_per_image"]),
    ]
