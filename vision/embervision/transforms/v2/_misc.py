"""v2 colour and conversion transforms (images only: masks and boxes pass through), box utilities and
the containers, which take and return whole samples."""
import ember
from ember import nn
from PIL import Image as PILImage

from ... import tv_tensors
from .. import _transforms_random as R
from .. import functional as F1
from . import _functional as F
from ._transform import Transform

__all__ = ["ColorJitter", "Normalize", "ToDtype", "ToImage", "ClampBoundingBoxes", "ConvertBoundingBoxFormat",
           "Compose", "RandomApply", "RandomChoice", "RandomOrder"]


def _is_image_leaf(leaf):
    return not isinstance(leaf, (tv_tensors.Mask, tv_tensors.BoundingBoxes, tv_tensors.KeyPoints))


class ColorJitter(Transform):
    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._v1 = R.ColorJitter(brightness, contrast, saturation, hue)

    def make_params(self, leaves, size):
        v1 = self._v1
        order, b, c, s, h = v1.get_params(v1.brightness, v1.contrast, v1.saturation, v1.hue)
        return {"order": [int(k) for k in order], "factors": [b, c, s, h]}

    def transform(self, leaf, params):
        if not _is_image_leaf(leaf):
            return leaf
        ops = (F1.adjust_brightness, F1.adjust_contrast, F1.adjust_saturation, F1.adjust_hue)
        plain = leaf.as_subclass(ember.Tensor) if isinstance(leaf, tv_tensors.TVTensor) else leaf
        for k in params["order"]:
            if params["factors"][k] is not None:
                plain = ops[k](plain, params["factors"][k])
        return tv_tensors.wrap(plain, like=leaf) if isinstance(leaf, tv_tensors.TVTensor) else plain


class Normalize(Transform):
    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean, self.std, self.inplace = list(mean), list(std), inplace

    def transform(self, leaf, params):
        if not _is_image_leaf(leaf):
            return leaf
        if isinstance(leaf, PILImage.Image):
            raise TypeError("Normalize does not support PIL images.")
        plain = leaf.as_subclass(ember.Tensor) if isinstance(leaf, tv_tensors.TVTensor) else leaf
        out = F1.normalize(plain, self.mean, self.std, self.inplace)
        return tv_tensors.wrap(out, like=leaf) if isinstance(leaf, tv_tensors.TVTensor) else out


class ToDtype(Transform):
    """Images to `dtype` (rescaling values when `scale`); masks and boxes keep theirs."""

    def __init__(self, dtype, scale=False):
        super().__init__()
        self.dtype, self.scale = dtype, scale

    def transform(self, leaf, params):
        if not _is_image_leaf(leaf) or isinstance(leaf, PILImage.Image):
            return leaf
        plain = leaf.as_subclass(ember.Tensor) if isinstance(leaf, tv_tensors.TVTensor) else leaf
        out = F1.convert_image_dtype(plain, self.dtype) if self.scale else plain.to(self.dtype)
        return tv_tensors.wrap(out, like=leaf) if isinstance(leaf, tv_tensors.TVTensor) else out


class ToImage(Transform):
    def transform(self, leaf, params):
        if isinstance(leaf, (PILImage.Image, ember.Tensor)) and _is_image_leaf(leaf):
            return tv_tensors.Image(leaf)
        return leaf


class ClampBoundingBoxes(Transform):
    def transform(self, leaf, params):
        return F.clamp_bounding_boxes(leaf) if isinstance(leaf, tv_tensors.BoundingBoxes) else leaf


class ConvertBoundingBoxFormat(Transform):
    def __init__(self, format):
        super().__init__()
        self.format = format

    def transform(self, leaf, params):
        if isinstance(leaf, tv_tensors.BoundingBoxes):
            return F.convert_bounding_box_format(leaf, self.format)
        return leaf


def _call(t, inputs):
    return t(*inputs) if len(inputs) > 1 else t(inputs[0])


def _as_inputs(out, several):
    return out if several else (out,)


class Compose(nn.Module):
    """Applies `transforms` in order to the whole sample (an nn.Module, so it nests in nn.Sequential)."""

    def __init__(self, transforms):
        super().__init__()
        if not isinstance(transforms, (list, tuple)):
            raise TypeError("Argument transforms should be a sequence of callables")
        self.transforms = nn.ModuleList([t for t in transforms]) if all(isinstance(t, nn.Module)
                                                                         for t in transforms) else list(transforms)

    def forward(self, *inputs):
        several = len(inputs) > 1
        for t in self.transforms:
            inputs = _as_inputs(_call(t, inputs), several)
        return inputs if several else inputs[0]


class RandomApply(Compose):
    def __init__(self, transforms, p=0.5):
        super().__init__(transforms)
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.p = p

    def forward(self, *inputs):
        if not R.coin(self.p):
            return inputs if len(inputs) > 1 else inputs[0]
        return super().forward(*inputs)


class RandomChoice(nn.Module):
    def __init__(self, transforms, p=None):
        super().__init__()
        if not isinstance(transforms, (list, tuple)):
            raise TypeError("Argument transforms should be a sequence of callables")
        if p is None:
            p = [1.0] * len(transforms)
        elif len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != {len(transforms)}")
        self.transforms = list(transforms)
        total = float(sum(p))
        self.p = [float(v) / total for v in p]

    def forward(self, *inputs):
        idx = int(ember.multinomial(ember.tensor(self.p), 1).item())
        return _call(self.transforms[idx], inputs)


class RandomOrder(nn.Module):
    def __init__(self, transforms):
        super().__init__()
        if not isinstance(transforms, (list, tuple)):
            raise TypeError("Argument transforms should be a sequence of callables")
        self.transforms = list(transforms)

    def forward(self, *inputs):
        several = len(inputs) > 1
        for i in ember.randperm(len(self.transforms)).tolist():
            inputs = _as_inputs(_call(self.transforms[i], inputs), several)
        return inputs if several else inputs[0]
