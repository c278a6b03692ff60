"""transforms' deterministic classes and the containers (torchvision 0.10's v1 API), as nn.Modules
whose forward calls transforms.functional."""
import numbers

import ember
from ember import nn

from . import functional as F
from ._interpolation import InterpolationMode, to_interpolation_mode

__all__ = ["Compose", "ToTensor", "PILToTensor", "ConvertImageDtype", "ToPILImage", "Normalize", "Resize",
           "CenterCrop", "Pad", "Lambda", "RandomApply", "RandomChoice", "RandomOrder", "LinearTransformation",
           "Grayscale", "FiveCrop", "TenCrop"]


def setup_size(size, error_msg):
    """An int or one/two-element sequence -> (h, w)."""
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 1:
        return size[0], size[0]
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(error_msg)
    return size[0], size[1]


def _params_repr(module, **params):
    return f"{type(module).__name__}(" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")"


def module_list(transforms):
    """The transforms as an nn.ModuleList when they are all modules (so they are submodules: ember.jit.save finds
    the attributes a scripted container reads in them), else as a plain list (a Lambda's callable, say)."""
    items = list(transforms)
    return nn.ModuleList(items) if all(isinstance(t, nn.Module) for t in items) else items


class Compose(nn.Module):
    """Applies `transforms` in order."""

    def __init__(self, transforms):
        super().__init__()
        self.transforms = module_list(transforms)

    def forward(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        return type(self).__name__ + "(" + "".join(f"\n    {t}" for t in self.transforms) + "\n)"


class ToTensor(nn.Module):
    def forward(self, pic):
        return F.to_tensor(pic)

    def __repr__(self):
        return "ToTensor()"


class PILToTensor(nn.Module):
    def forward(self, pic):
        return F.pil_to_tensor(pic)

    def __repr__(self):
        return "PILToTensor()"


class ConvertImageDtype(nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, self.dtype)


class ToPILImage(nn.Module):
    def __init__(self, mode=None):
        super().__init__()
        self.mode = mode

    def forward(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self):
        return _params_repr(self, mode=self.mode)


class Normalize(nn.Module):
    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean, self.std, self.inplace = mean, std, inplace

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self):
        return _params_repr(self, mean=self.mean, std=self.std)


class Resize(nn.Module):
    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=None):
        super().__init__()
        if not isinstance(size, (int, list, tuple)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, (list, tuple)) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size, self.max_size, self.antialias = size, max_size, antialias
        self.interpolation = to_interpolation_mode(interpolation)

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self):
        return _params_repr(self, size=self.size, interpolation=self.interpolation.value, max_size=self.max_size,
                            antialias=self.antialias)


class CenterCrop(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self):
        return _params_repr(self, size=self.size)


class Pad(nn.Module):
    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if not isinstance(fill, (numbers.Number, str, tuple, list)):
            raise TypeError("Got inappropriate fill arg")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        if isinstance(padding, (tuple, list)) and len(padding) not in (1, 2, 4):
            raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element "
                             "tuple")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self):
        return _params_repr(self, padding=self.padding, fill=self.fill, padding_mode=self.padding_mode)


class Lambda(nn.Module):
    def __init__(self, lambd):
        super().__init__()
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def forward(self, img):
        return self.lambd(img)

    def __repr__(self):
        return "Lambda()"


class RandomApply(nn.Module):
    """Applies all of `transforms` with probability p (one draw for the whole batch)."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms, self.p = module_list(transforms), p

    def forward(self, img):
        if self.p < float(ember.rand(1)):
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        return f"{type(self).__name__}(\n    p={self.p}" + "".join(f"\n    {t}" for t in self.transforms) + "\n)"


class RandomChoice(nn.Module):
    """Applies one of `transforms`, picked with probabilities `p` (uniform when None)."""

    def __init__(self, transforms, p=None):
        super().__init__()
        if not isinstance(transforms, (list, tuple)):
            raise TypeError("Argument transforms should be a sequence")
        if p is not None and len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != {len(transforms)}")
        self.transforms = module_list(transforms)
        total = float(sum(p)) if p is not None else float(len(transforms))
        self.p = [float(v) / total for v in p] if p is not None else [1.0 / total] * len(transforms)

    def forward(self, img):
        idx = int(ember.multinomial(ember.tensor(self.p), 1))
        out, i = img, 0
        for t in self.transforms:  # (a loop, not self.transforms[idx], so that it scripts: unrolled there)
            if i == idx:
                out = t(img)
            i += 1
        return out


class RandomOrder(nn.Module):
    """Applies `transforms` in a random order."""

    def __init__(self, transforms):
        super().__init__()
        if not isinstance(transforms, (list, tuple)):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = module_list(transforms)

    def forward(self, img):
        order = ember.randperm(len(self.transforms))
        for k in range(len(self.transforms)):
            pick, i = int(order[k]), 0
            for t in self.transforms:  # self.transforms[pick], written so that it scripts (unrolled there)
                if i == pick:
                    img = t(img)
                i += 1
        return img


class LinearTransformation(nn.Module):
    """Flattens each [C, H, W] image, subtracts `mean_vector` and multiplies by `transformation_matrix`."""

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        n = transformation_matrix.shape[0]
        if transformation_matrix.dim() != 2 or transformation_matrix.shape[1] != n:
            raise ValueError("transformation_matrix should be square. Got "
                             f"{list(transformation_matrix.shape)} rectangular matrix.")
        if mean_vector.shape[0] != n:
            raise ValueError(f"mean_vector should have the same length {mean_vector.shape[0]} as any one of the "
                             f"dimensions of the transformation_matrix [{list(transformation_matrix.shape)}]")
        if transformation_matrix.device != mean_vector.device:
            raise ValueError("Input tensors should be on the same device. Got "
                             f"{transformation_matrix.device} and {mean_vector.device}")
        self.transformation_matrix, self.mean_vector = transformation_matrix, mean_vector

    def forward(self, tensor):
        shape = tensor.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != {self.transformation_matrix.shape[0]}")
        flat = tensor.reshape(-1, n) - self.mean_vector
        return ember.mm(flat, self.transformation_matrix).reshape(shape)


class Grayscale(nn.Module):
    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, self.num_output_channels)

    def __repr__(self):
        return _params_repr(self, num_output_channels=self.num_output_channels)


class FiveCrop(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = setup_size(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.five_crop(img, self.size)


class TenCrop(nn.Module):
    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = setup_size(size, "Please provide only two dimensions (h, w) for size.")
        self.vertical_flip = vertical_flip

    def forward(self, img):
        return F.ten_crop(img, self.size, self.vertical_flip)
