"""v2 geometric transforms: the v1 parameter draws, applied alike to images, masks and boxes."""
import ember

from .. import _transforms_random as R
from .._interpolation import InterpolationMode, to_interpolation_mode
from .._transforms_basic import setup_size
from . import _functional as F
from ._transform import Transform

__all__ = ["RandomHorizontalFlip", "RandomVerticalFlip", "Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop",
           "Pad", "RandomAffine", "RandomRotation"]


class _Flip(Transform):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.p = p

    def make_params(self, leaves, size):
        return {} if R.coin(self.p) else None


class RandomHorizontalFlip(_Flip):
    def transform(self, leaf, params):
        return F.hflip(leaf)


class RandomVerticalFlip(_Flip):
    def transform(self, leaf, params):
        return F.vflip(leaf)


class Resize(Transform):
    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        super().__init__()
        self.size = [size] if isinstance(size, int) else list(size)
        self.interpolation = to_interpolation_mode(interpolation)
        self.max_size, self.antialias = max_size, antialias

    def transform(self, leaf, params):
        return F.resize(leaf, self.size, self.interpolation, self.max_size, self.antialias)


class CenterCrop(Transform):
    def __init__(self, size):
        super().__init__()
        self.size = setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def transform(self, leaf, params):
        return F.center_crop(leaf, list(self.size))


class Pad(Transform):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def transform(self, leaf, params):
        return F.pad(leaf, self.padding, self.fill, self.padding_mode)


class RandomCrop(Transform):
    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = setup_size(size, "Please provide only two dimensions (h, w) for size.")
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    def make_params(self, leaves, size):
        h, w = size
        pad = [0, 0, 0, 0]
        if self.padding is not None:
            pad = F.F1._parse_padding(self.padding)
        h, w = h + pad[1] + pad[3], w + pad[0] + pad[2]
        if self.pad_if_needed and w < self.size[1]:
            extra = self.size[1] - w
            pad[0], pad[2], w = pad[0] + extra, pad[2] + extra, w + 2 * extra
        if self.pad_if_needed and h < self.size[0]:
            extra = self.size[0] - h
            pad[1], pad[3], h = pad[1] + extra, pad[3] + extra, h + 2 * extra
        th, tw = self.size
        if h + 1 < th or w + 1 < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger then input image size {(h, w)}")
        top = 0 if h == th else R.randint(0, h - th + 1)
        left = 0 if w == tw else R.randint(0, w - tw + 1)
        return {"pad": pad, "top": top, "left": left}

    def transform(self, leaf, params):
        if any(params["pad"]):
            leaf = F.pad(leaf, params["pad"], self.fill, self.padding_mode)
        return F.crop(leaf, params["top"], params["left"], self.size[0], self.size[1])


class RandomResizedCrop(Transform):
    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.size = setup_size(size, "Please provide only two dimensions (h, w) for size.")
        self.scale, self.ratio, self.antialias = scale, ratio, antialias
        self.interpolation = to_interpolation_mode(interpolation)

    def make_params(self, leaves, size):
        # get_params reads only the size of its image argument
        top, left, h, w = R.RandomResizedCrop.get_params(ember.empty(0, size[0], size[1]), self.scale, self.ratio)
        return {"box": (top, left, h, w)}

    def transform(self, leaf, params):
        top, left, h, w = params["box"]
        return F.resized_crop(leaf, top, left, h, w, list(self.size), self.interpolation, self.antialias)


def _fill_for(leaf, fill):
    return R.fill_for(leaf, fill) if isinstance(leaf, ember.Tensor) else fill


class RandomAffine(Transform):
    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation=InterpolationMode.NEAREST,
                 fill=0, center=None):
        super().__init__()
        self._v1 = R.RandomAffine(degrees, translate, scale, shear, interpolation, fill)
        self.center = center

    def make_params(self, leaves, size):
        v1 = self._v1
        angle, translate, scale, shear = v1.get_params(v1.degrees, v1.translate, v1.scale, v1.shear,
                                                       [size[1], size[0]])
        return {"angle": angle, "translate": list(translate), "scale": scale, "shear": list(shear)}

    def transform(self, leaf, params):
        return F.affine(leaf, params["angle"], params["translate"], params["scale"], params["shear"],
                        self._v1.interpolation, _fill_for(leaf, self._v1.fill), self.center)


class RandomRotation(Transform):
    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        super().__init__()
        self._v1 = R.RandomRotation(degrees, interpolation, expand, center, fill)

    def make_params(self, leaves, size):
        return {"angle": self._v1.get_params(self._v1.degrees)}

    def transform(self, leaf, params):
        v1 = self._v1
        return F.rotate(leaf, params["angle"], v1.interpolation, v1.expand, v1.center, _fill_for(leaf, v1.fill))

