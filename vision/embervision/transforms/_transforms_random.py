"""transforms' random classes (torchvision 0.10's v1 API): parameters come from ember's default
generator (so ember.manual_seed reproduces them) and are drawn once per call, so every image of a
[..., C, H, W] batch gets the same crop, angle or colour change."""
from typing import Any, Tuple

import math
import numbers
import warnings

import ember
from ember import nn

from . import functional as F
from ._interpolation import InterpolationMode, to_interpolation_mode
from ._transforms_basic import setup_size

__all__ = ["RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "RandomResizedCrop", "ColorJitter",
           "RandomRotation", "RandomAffine", "RandomPerspective", "RandomGrayscale", "RandomErasing", "GaussianBlur",
           "RandomInvert", "RandomPosterize", "RandomSolarize", "RandomAdjustSharpness", "RandomAutocontrast",
           "RandomEqualize"]


def uniform(low: float, high: float) -> float:
    return float(low) + (float(high) - float(low)) * float(ember.rand(1))


def randint(low: int, high: int) -> int:
    return int(ember.randint(low, high, (1,)))


def coin(p: float) -> bool:
    return float(ember.rand(1)) < p


def setup_angle(x, name: Any, req_sizes: Any = (2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        return [-x, x]
    if not isinstance(x, (list, tuple)) or len(x) not in req_sizes:
        raise ValueError(f"If {name} is a sequence its length should be one of {req_sizes}.")
    return [float(v) for v in x]


def fill_for(img, fill: Any):
    """Tensors take one fill value per channel."""
    if isinstance(img, ember.Tensor) and fill is not None:
        if isinstance(fill, (int, float)):
            return [float(fill)] * F.get_image_num_channels(img)
        return [float(f) for f in fill]
    return fill


class RandomCrop(nn.Module):
    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = setup_size(size, "Please provide only two dimensions (h, w) for size.")
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    @staticmethod
    def get_params(img, output_size: Any):
        w, h = F.get_image_size(img)
        th, tw = output_size
        if h + 1 < th or w + 1 < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger then input image size {(h, w)}")
        if w == tw and h == th:
            return 0, 0, h, w
        return randint(0, h - th + 1), randint(0, w - tw + 1), th, tw

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = F.get_image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, [self.size[1] - w, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, [0, self.size[0] - h], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)


class RandomHorizontalFlip(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        return F.hflip(img) if coin(self.p) else img


class RandomVerticalFlip(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        return F.vflip(img) if coin(self.p) else img


class RandomResizedCrop(nn.Module):
    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias=None):
        super().__init__()
        self.size = setup_size(size, "Please provide only two dimensions (h, w) for size.")
        if not isinstance(scale, (list, tuple)):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, (list, tuple)):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        self.scale, self.ratio, self.antialias = scale, ratio, antialias
        self.interpolation = to_interpolation_mode(interpolation)

    @staticmethod
    def get_params(img, scale: Any, ratio: Any) -> Tuple[int, int, int, int]:
        width, height = F.get_image_size(img)
        area = height * width
        log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
        for _ in range(10):
            target_area = area * uniform(scale[0], scale[1])
            aspect = math.exp(uniform(log_lo, log_hi))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return randint(0, height - h + 1), randint(0, width - w + 1), h, w
        in_ratio = width / height  # ten misses: the central crop of the nearest allowed ratio
        if in_ratio < min(ratio):
            w, h = width, int(round(width / min(ratio)))
        elif in_ratio > max(ratio):
            h, w = height, int(round(height * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, list(self.size), self.interpolation, antialias=self.antialias)


def _check_jitter(value: Any, name: Any, center: Any = 1.0, bound: Any = (0, float("inf")),
                  clip_first_on_zero: Any = True):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - float(value), center + float(value)]
        if clip_first_on_zero:
            value[0] = max(value[0], 0.0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}")
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    if value[0] == value[1] == center:
        return None
    return value


class ColorJitter(nn.Module):
    """Brightness, contrast, saturation and hue changes, each factor drawn uniformly, in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self.brightness = _check_jitter(brightness, "brightness")
        self.contrast = _check_jitter(contrast, "contrast")
        self.saturation = _check_jitter(saturation, "saturation")
        self.hue = _check_jitter(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def get_params(brightness: Any, contrast: Any, saturation: Any, hue: Any):
        """(the order of the four adjustments as a tensor, then each factor or None)."""
        order = ember.randperm(4)
        b = None if brightness is None else uniform(brightness[0], brightness[1])
        c = None if contrast is None else uniform(contrast[0], contrast[1])
        s = None if saturation is None else uniform(saturation[0], saturation[1])
        h = None if hue is None else uniform(hue[0], hue[1])
        return order, b, c, s, h

    def forward(self, img):
        order, b, c, s, h = self.get_params(self.brightness, self.contrast, self.saturation, self.hue)
        for k in range(4):
            fn_id = int(order[k])
            # (each `factor is not None` first: known when scripting, so an unused adjustment is not compiled)
            if b is not None and fn_id == 0:
                img = F.adjust_brightness(img, b)
            elif c is not None and fn_id == 1:
                img = F.adjust_contrast(img, c)
            elif s is not None and fn_id == 2:
                img = F.adjust_saturation(img, s)
            elif h is not None and fn_id == 3:
                img = F.adjust_hue(img, h)
        return img


class RandomRotation(nn.Module):
    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        super().__init__()
        self.degrees = setup_angle(degrees, "degrees")
        if center is not None and (not isinstance(center, (list, tuple)) or len(center) != 2):
            raise ValueError("If center is a sequence its length should be one of (2,).")
        if fill is None:
            fill = 0
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.interpolation = to_interpolation_mode(interpolation)
        self.expand, self.center, self.fill = expand, center, fill

    @staticmethod
    def get_params(degrees: Any):
        return uniform(degrees[0], degrees[1])

    def forward(self, img):
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill_for(img, self.fill))


class RandomAffine(nn.Module):
    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation=InterpolationMode.NEAREST,
                 fill=0):
        super().__init__()
        self.degrees = setup_angle(degrees, "degrees")
        if translate is not None:
            if not isinstance(translate, (list, tuple)) or len(translate) != 2:
                raise ValueError("translate should be a sequence of length 2.")
            if not all(0.0 <= t <= 1.0 for t in translate):
                raise ValueError("translation values should be between 0 and 1")
        if scale is not None:
            if not isinstance(scale, (list, tuple)) or len(scale) != 2:
                raise ValueError("scale should be a sequence of length 2.")
            if any(s <= 0 for s in scale):
                raise ValueError("scale values should be positive")
        self.shear = setup_angle(shear, "shear", req_sizes=(2, 4)) if shear is not None else None
        if fill is None:
            fill = 0
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.translate, self.scale, self.fill = translate, scale, fill
        self.interpolation = to_interpolation_mode(interpolation)

    @staticmethod
    def get_params(degrees: Any, translate: Any, scale_ranges: Any, shears: Any, img_size: Any):
        angle = uniform(degrees[0], degrees[1])
        tx = ty = 0
        if translate is not None:
            max_dx, max_dy = float(translate[0] * img_size[0]), float(translate[1] * img_size[1])
            tx, ty = int(round(uniform(-max_dx, max_dx))), int(round(uniform(-max_dy, max_dy)))
        scale = uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = uniform(shears[2], shears[3])
        return angle, (tx, ty), scale, (shear_x, shear_y)

    def forward(self, img):
        angle, translations, scale, shear = self.get_params(self.degrees, self.translate, self.scale, self.shear,
                                                            F.get_image_size(img))
        return F.affine(img, angle, translations, scale, shear, interpolation=self.interpolation,
                        fill=fill_for(img, self.fill))


class RandomPerspective(nn.Module):
    def __init__(self, distortion_scale=0.5, p=0.5, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.distortion_scale, self.p, self.fill = distortion_scale, p, fill
        self.interpolation = to_interpolation_mode(interpolation)

    @staticmethod
    def get_params(width: Any, height: Any, distortion_scale: Any):
        dx, dy = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))
        topleft = [randint(0, dx + 1), randint(0, dy + 1)]
        topright = [randint(width - dx - 1, width), randint(0, dy + 1)]
        botright = [randint(width - dx - 1, width), randint(height - dy - 1, height)]
        botleft = [randint(0, dx + 1), randint(height - dy - 1, height)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def forward(self, img):
        if not coin(self.p):
            return img
        width, height = F.get_image_size(img)
        start, end = self.get_params(width, height, self.distortion_scale)
        return F.perspective(img, start, end, self.interpolation, fill_for(img, self.fill))


class RandomGrayscale(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, img):
        channels = F.get_image_num_channels(img)
        return F.rgb_to_grayscale(img, channels) if coin(self.p) else img


class RandomErasing(nn.Module):
    """Erases a random rectangle of a tensor image with `value` (a number, per-channel values or 'random')."""

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, (tuple, list)):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, (tuple, list)):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    @staticmethod
    def get_params(img, scale: Any, ratio: Any, value: Any = None) -> Tuple[int, int, int, int, ember.Tensor]:
        img_c, img_h, img_w = img.shape[-3], img.shape[-2], img.shape[-1]
        area = img_h * img_w
        log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
        for _ in range(10):
            erase_area = area * uniform(scale[0], scale[1])
            aspect = math.exp(uniform(log_lo, log_hi))
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = ember.randn([img_c, h, w], dtype=ember.float32)
            else:
                v = ember.tensor(value)[:, None, None]
            return randint(0, img_h - h + 1), randint(0, img_w - w + 1), h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img):
        if not coin(self.p):
            return img
        if isinstance(self.value, (int, float)):
            value = [float(self.value)]
        elif isinstance(self.value, str):
            value = None
        else:
            value = [float(v) for v in self.value]
        if value is not None and len(value) not in (1, img.shape[-3]):
            raise ValueError("If value is a sequence, it should have either a single value or "
                             f"{img.shape[-3]} (number of input channels)")
        i, j, h, w, v = self.get_params(img, self.scale, self.ratio, value)
        return F.erase(img, i, j, h, w, v, self.inplace)


class GaussianBlur(nn.Module):
    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = setup_size(kernel_size, "Kernel size should be a tuple/list of two integers")
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, (list, tuple)) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min: Any, sigma_max: Any):
        return uniform(sigma_min, sigma_max)

    def forward(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, list(self.kernel_size), [sigma, sigma])


class _RandomColorOp(nn.Module):
    """Applies one functional op with probability p."""

    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, img):
        return self._apply_op(img) if coin(self.p) else img


class RandomInvert(_RandomColorOp):
    def __init__(self, p=0.5):
        super().__init__(p)

    def _apply_op(self, img):
        return F.invert(img)


class RandomPosterize(_RandomColorOp):
    def __init__(self, bits, p=0.5):
        super().__init__(p)
        self.bits = bits

    def _apply_op(self, img):
        return F.posterize(img, self.bits)


class RandomSolarize(_RandomColorOp):
    def __init__(self, threshold, p=0.5):
        super().__init__(p)
        self.threshold = threshold

    def _apply_op(self, img):
        return F.solarize(img, self.threshold)


class RandomAdjustSharpness(_RandomColorOp):
    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(p)
        self.sharpness_factor = sharpness_factor

    def _apply_op(self, img):
        return F.adjust_sharpness(img, self.sharpness_factor)


class RandomAutocontrast(_RandomColorOp):
    def __init__(self, p=0.5):
        super().__init__(p)

    def _apply_op(self, img):
        return F.autocontrast(img)


class RandomEqualize(_RandomColorOp):
    def __init__(self, p=0.5):
        super().__init__(p)

    def _apply_op(self, img):
        return F.equalize(img)
