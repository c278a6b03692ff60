"""MixUp and CutMix on a batch (images [N, C, H, W], integer labels [N]): each pairs the batch with
itself rolled by one, mixing images by a Beta(alpha, alpha) weight (MixUp) or pasting a box of the
rolled batch (CutMix), and labels become one-hot mixtures by the same weight."""
import math

import ember
from ember import nn
from ember.distributions import Beta

from ... import tv_tensors

__all__ = ["MixUp", "CutMix"]


class _BaseMix(nn.Module):
    def __init__(self, *, alpha=1.0, num_classes=None, labels_getter="default"):
        super().__init__()
        if alpha <= 0:
            raise ValueError(f"alpha should be > 0, got {alpha}")
        if num_classes is None or num_classes < 1:
            raise ValueError(f"num_classes must be a positive int, got {num_classes}")
        self.alpha, self.num_classes = float(alpha), num_classes

    def _check(self, images, labels):
        if not isinstance(images, ember.Tensor) or images.dim() != 4:
            raise ValueError(f"Expected a batched input with 4 dims, got {getattr(images, 'dim', lambda: None)()}")
        if not isinstance(labels, ember.Tensor) or labels.dim() != 1 or labels.shape[0] != images.shape[0]:
            raise ValueError("labels should be a 1-D tensor of one label per image of the batch")

    def _mixed_labels(self, labels, lam):
        one_hot = ember.nn.functional.one_hot(labels.to(ember.int64), self.num_classes).float()
        return one_hot.roll(1, 0) * (1.0 - lam) + one_hot * lam

    def _lam(self):
        return float(Beta(ember.tensor(self.alpha), ember.tensor(self.alpha)).sample().item())

    def forward(self, images, labels):
        self._check(images, labels)
        plain = images.as_subclass(ember.Tensor) if isinstance(images, tv_tensors.TVTensor) else images
        out, lam = self._mix(plain)
        out = tv_tensors.wrap(out, like=images) if isinstance(images, tv_tensors.TVTensor) else out
        return out, self._mixed_labels(labels, lam)


class MixUp(_BaseMix):
    def _mix(self, images):
        lam = self._lam()
        mixed = images.float() * lam + images.roll(1, 0).float() * (1.0 - lam)
        return mixed.to(images.dtype), lam


class CutMix(_BaseMix):
    def _mix(self, images):
        lam = self._lam()
        h, w = images.shape[-2], images.shape[-1]
        cx, cy = int(ember.randint(0, w, (1,)).item()), int(ember.randint(0, h, (1,)).item())
        half_w, half_h = 0.5 * w * math.sqrt(1.0 - lam), 0.5 * h * math.sqrt(1.0 - lam)
        x1, x2 = max(int(cx - half_w), 0), min(int(cx + half_w), w)
        y1, y2 = max(int(cy - half_h), 0), min(int(cy + half_h), h)
        out = images.clone()
        out[..., y1:y2, x1:x2] = images.roll(1, 0)[..., y1:y2, x1:x2]
        lam = 1.0 - (x2 - x1) * (y2 - y1) / (w * h)  # the pasted area sets the labels' weight
        return out, lam
