"""AutoAugment (ImageNet/CIFAR10/SVHN policies), RandAugment, TrivialAugmentWide and AugMix: learned or
uniformly drawn chains of photometric and geometric ops on uint8 tensors [..., 1|3, H, W] or PIL
images. Random choices come from ember's generator, once per call, so a batch shares them."""
from typing import Any, List, Tuple

import math
from enum import Enum

import ember
from ember import nn

from . import functional as F
from ._interpolation import InterpolationMode, to_interpolation_mode
from ._transforms_random import fill_for, randint

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]


def _apply_op(img, op_name: Any, magnitude: Any, interpolation: Any, fill: Any):
    if op_name == "ShearX":  # the papers shear by `magnitude` itself, i.e. an angle of atan(magnitude)
        return F.affine(img, 0.0, [0, 0], 1.0, [math.degrees(math.atan(magnitude)), 0.0], interpolation, fill,
                        center=[0, 0])
    if op_name == "ShearY":
        return F.affine(img, 0.0, [0, 0], 1.0, [0.0, math.degrees(math.atan(magnitude))], interpolation, fill,
                        center=[0, 0])
    if op_name == "TranslateX":
        return F.affine(img, 0.0, [int(magnitude), 0], 1.0, [0.0, 0.0], interpolation, fill)
    if op_name == "TranslateY":
        return F.affine(img, 0.0, [0, int(magnitude)], 1.0, [0.0, 0.0], interpolation, fill)
    if op_name == "Rotate":
        return F.rotate(img, magnitude, interpolation, fill=fill)
    if op_name == "Brightness":
        return F.adjust_brightness(img, 1.0 + magnitude)
    if op_name == "Color":
        return F.adjust_saturation(img, 1.0 + magnitude)
    if op_name == "Contrast":
        return F.adjust_contrast(img, 1.0 + magnitude)
    if op_name == "Sharpness":
        return F.adjust_sharpness(img, 1.0 + magnitude)
    if op_name == "Posterize":
        return F.posterize(img, int(magnitude))
    if op_name == "Solarize":
        return F.solarize(img, magnitude)
    if op_name == "AutoContrast":
        return F.autocontrast(img)
    if op_name == "Equalize":
        return F.equalize(img)
    if op_name == "Invert":
        return F.invert(img)
    if op_name == "Identity":
        return img
    raise ValueError(f"The provided operator {op_name} is not recognized.")


def _linspace(lo: float, hi: float, n: int) -> List[float]:
    return [lo + (hi - lo) * i / (n - 1) for i in range(n)] if n > 1 else [lo]


def _posterize_bits(top: int, spread: int, n: int) -> List[float]:
    """Bits falling from `top` by `spread` over n bins (torchvision's rounding of the bin position)."""
    return [float(top - round(i / ((n - 1) / spread))) for i in range(n)]


def _no_magnitudes() -> List[float]:
    none: List[float] = []
    return none


Space = List[Tuple[str, List[float], bool]]


def _space(num_bins: int, width: float, height: float, shear: float, translate_x: float, translate_y: float,
           rotate: float, enhance: float, posterize_spread: int) -> Space:
    """[(op name, magnitudes per bin (empty for ops without one), signed)], in the papers' order (a list, not a
    dict, so that scripted code draws from the same order)."""
    return [
        ("ShearX", _linspace(0.0, shear, num_bins), True),
        ("ShearY", _linspace(0.0, shear, num_bins), True),
        ("TranslateX", _linspace(0.0, translate_x, num_bins), True),
        ("TranslateY", _linspace(0.0, translate_y, num_bins), True),
        ("Rotate", _linspace(0.0, rotate, num_bins), True),
        ("Brightness", _linspace(0.0, enhance, num_bins), True),
        ("Color", _linspace(0.0, enhance, num_bins), True),
        ("Contrast", _linspace(0.0, enhance, num_bins), True),
        ("Sharpness", _linspace(0.0, enhance, num_bins), True),
        ("Posterize", _posterize_bits(8, posterize_spread, num_bins), False),
        ("Solarize", _linspace(255.0, 0.0, num_bins), False),
        ("AutoContrast", _no_magnitudes(), False),
        ("Equalize", _no_magnitudes(), False),
    ]


def _identity_and(space: Space) -> Space:
    return [("Identity", _no_magnitudes(), False)] + space


def _lookup(space: Space, name: str) -> Tuple[List[float], bool]:
    for entry in space:
        if entry[0] == name:
            return entry[1], entry[2]
    return _no_magnitudes(), False  # Invert, Identity


def _dirichlet(concentration: ember.Tensor) -> ember.Tensor:
    """A Dirichlet draw: Gamma(a_i, 1) draws (floored at float32's tiny, as the distribution does) normalized."""
    gammas = ember._standard_gamma(concentration).clamp(min=1.1754943508222875e-38)
    return gammas / gammas.sum(-1, keepdim=True)


def _random_sign(magnitude: Any, signed: Any):
    return -magnitude if signed and randint(0, 2) else magnitude


class AutoAugmentPolicy(Enum):
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)), (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)), (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)), (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)), (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)), (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)), (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)), (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)), (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)), (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)), (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)), (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)), (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)), (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)), (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)), (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)), (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)), (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)), (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)), (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)), (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)), (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
    ],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)), (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)), (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)), (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)), (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)), (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)), (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)), (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)), (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)), (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)), (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ],
}


class AutoAugment(nn.Module):
    """One of the policy's 25 sub-policies per call; each of its two ops runs with its probability."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        if policy not in _POLICIES:
            raise ValueError(f"The provided policy {policy} is not recognized.")
        self.policy, self.fill = policy, fill
        self.interpolation = to_interpolation_mode(interpolation)
        self.policies = _POLICIES[policy]
        # the sub-policies' two ops as flat lists (bin -1: no magnitude), which scripted code indexes
        ops = [op for sub_policy in self.policies for op in sub_policy]
        self._op_names = [name for name, _, _ in ops]
        self._op_probs = [float(p) for _, p, _ in ops]
        self._op_bins = [-1 if b is None else b for _, _, b in ops]

    @staticmethod
    def get_params(transform_num: int) -> Tuple[int, ember.Tensor, ember.Tensor]:
        """(the sub-policy, each op's probability draw, each op's sign draw)."""
        return randint(0, transform_num), ember.rand(2), ember.randint(0, 2, (2,))

    def forward(self, img):
        fill = fill_for(img, self.fill)
        policy_id, probs, signs = self.get_params(len(self._op_names) // 2)
        width, height = F.get_image_size(img)
        space = _space(10, width, height, 0.3, 150.0 / 331.0 * width, 150.0 / 331.0 * height, 30.0, 0.9, 4)
        for i in range(2):
            k = 2 * policy_id + i
            op_name, magnitude_id = self._op_names[k], self._op_bins[k]
            if float(probs[i]) <= self._op_probs[k]:
                magnitudes, signed = _lookup(space, op_name)
                magnitude = float(magnitudes[magnitude_id]) if magnitude_id >= 0 else 0.0
                if signed and int(signs[i]) == 0:
                    magnitude = -magnitude
                img = _apply_op(img, op_name, magnitude, self.interpolation, fill)
        return img

    def __repr__(self):
        return f"{type(self).__name__}(policy={self.policy}, fill={self.fill})"


class RandAugment(nn.Module):
    """`num_ops` ops drawn uniformly, each at the fixed `magnitude` bin of `num_magnitude_bins`."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__()
        if not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"magnitude must be in [0, {num_magnitude_bins - 1}], got {magnitude}")
        self.num_ops, self.magnitude, self.num_magnitude_bins, self.fill = num_ops, magnitude, num_magnitude_bins, fill
        self.interpolation = to_interpolation_mode(interpolation)

    def forward(self, img):
        fill = fill_for(img, self.fill)
        for _ in range(self.num_ops):
            width, height = F.get_image_size(img)
            space = _identity_and(_space(self.num_magnitude_bins, width, height, 0.3, 150.0 / 331.0 * width,
                                         150.0 / 331.0 * height, 30.0, 0.9, 4))
            op_name, magnitudes, signed = space[randint(0, len(space))]
            magnitude = float(magnitudes[self.magnitude]) if len(magnitudes) > 0 else 0.0
            img = _apply_op(img, op_name, _random_sign(magnitude, signed), self.interpolation, fill)
        return img


class TrivialAugmentWide(nn.Module):
    """One op drawn uniformly, at a magnitude bin drawn uniformly (the wide ranges)."""

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        self.num_magnitude_bins, self.fill = num_magnitude_bins, fill
        self.interpolation = to_interpolation_mode(interpolation)

    def forward(self, img):
        fill = fill_for(img, self.fill)
        space = _identity_and(_space(self.num_magnitude_bins, 0.0, 0.0, 0.99, 32.0, 32.0, 135.0, 0.99, 6))
        op_name, magnitudes, signed = space[randint(0, len(space))]
        magnitude = float(magnitudes[randint(0, len(magnitudes))]) if len(magnitudes) > 0 else 0.0
        return _apply_op(img, op_name, _random_sign(magnitude, signed), self.interpolation, fill)


class AugMix(nn.Module):
    """`mixture_width` random op chains mixed by Dirichlet weights, then blended with the original by a
    Beta weight. Unlike torchvision, one set of weights serves the whole batch (as every transform here)."""

    _PARAMETER_MAX = 10

    def __init__(self, severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
                 interpolation=InterpolationMode.BILINEAR, fill=None):
        super().__init__()
        if not 1 <= severity <= self._PARAMETER_MAX:
            raise ValueError(f"The severity must be between [1, {self._PARAMETER_MAX}]. Got {severity} instead.")
        self.severity, self.mixture_width, self.chain_depth = severity, mixture_width, chain_depth
        self.alpha, self.all_ops, self.fill = alpha, all_ops, fill
        self.interpolation = to_interpolation_mode(interpolation)

    def _augmentation_space(self, width: int, height: int) -> Space:
        space: Space = []
        for name, magnitudes, signed in _space(self._PARAMETER_MAX, float(width), float(height), 0.3, width / 3.0,
                                               height / 3.0, 30.0, 0.9, 4):
            if name == "Posterize":  # 4 bits down to 0
                magnitudes = [b - 4.0 for b in magnitudes]
            # without all_ops, the ops that overlap ImageNet-C's corruptions are left out
            if self.all_ops or (name != "Brightness" and name != "Color" and name != "Contrast" and
                                name != "Sharpness"):
                space.append((name, magnitudes, signed))
        return space

    def forward(self, orig_img):
        fill = fill_for(orig_img, self.fill)
        img = orig_img if isinstance(orig_img, ember.Tensor) else F.pil_to_tensor(orig_img)
        width, height = F.get_image_size(img)
        space = self._augmentation_space(width, height)
        m = _dirichlet(ember.tensor([float(self.alpha), float(self.alpha)]))
        weights = _dirichlet(ember.tensor([float(self.alpha)] * self.mixture_width)) * m[1]
        mix = m[0] * img.float()
        for i in range(self.mixture_width):
            aug = img
            depth = self.chain_depth if self.chain_depth > 0 else randint(1, 4)
            for _ in range(depth):
                op_name, magnitudes, signed = space[randint(0, len(space))]
                magnitude = float(magnitudes[randint(0, self.severity)]) if len(magnitudes) > 0 else 0.0
                aug = _apply_op(aug, op_name, _random_sign(magnitude, signed), self.interpolation, fill)
            mix = mix + weights[i] * aug.float()
        out = mix.to(img.dtype)
        return out if isinstance(orig_img, ember.Tensor) else F.to_pil_image(out)
