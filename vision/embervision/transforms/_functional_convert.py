"""Conversions between PIL images, NumPy arrays and tensors, dtype conversion and normalisation
(transforms.functional's to_tensor, pil_to_tensor, to_pil_image, convert_image_dtype, normalize)."""
from typing import Any

import ember
import numpy as np
from PIL import Image

from . import _functional_pil as F_pil

_PIL_MODES_BY_DTYPE = {np.dtype(np.int16): "I;16", np.dtype(np.int32): "I", np.dtype(np.float32): "F"}


def _pil_to_array(pic):
    if pic.mode == "1":
        return (np.asarray(pic, dtype=np.uint8) * 255).astype(np.uint8)
    if pic.mode == "I;16":
        return np.asarray(pic, dtype=np.int16)
    arr = np.asarray(pic)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return arr


def to_tensor(pic):
    """PIL image or HWC ndarray -> CHW tensor; uint8 scales to float in [0, 1], other types keep values."""
    if not (F_pil.is_pil_image(pic) or isinstance(pic, np.ndarray)):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        arr = pic[:, :, None] if pic.ndim == 2 else pic
        out = ember.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
        return out.float().div(255) if out.dtype == ember.uint8 else out
    arr = _pil_to_array(pic)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    out = ember.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
    return out.float().div(255) if out.dtype == ember.uint8 else out


def pil_to_tensor(pic):
    """PIL image -> CHW tensor with the image's own dtype and values."""
    if not F_pil.is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    arr = np.array(pic)  # a writable copy
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return ember.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))


def _max(dtype: Any) -> int:
    """The largest value of an integer dtype (ember.iinfo(dtype).max, written so that it scripts)."""
    if dtype == ember.uint8:
        return 255
    if dtype == ember.int8:
        return 127
    if dtype == ember.int16:
        return 32767
    if dtype == ember.int32:
        return 2147483647
    if dtype == ember.int64:
        return 9223372036854775807
    raise TypeError(f"{dtype} is not an integer image dtype")


def _min(dtype: Any) -> int:
    """The smallest value of an integer dtype (ember.iinfo(dtype).min)."""
    return 0 if dtype == ember.uint8 else -_max(dtype) - 1


def _is_float(dtype: Any) -> bool:
    return dtype == ember.float16 or dtype == ember.bfloat16 or dtype == ember.float32 or dtype == ember.float64


def convert_image_dtype(image, dtype: Any = ember.float32):
    """Rescales values between dtypes: ints span [0, max], floats [0, 1] (torchvision's rules)."""
    if not isinstance(image, ember.Tensor):
        raise TypeError("Input img should be Tensor Image")
    if image.dtype == dtype:
        return image
    if _is_float(image.dtype):
        if _is_float(dtype):
            return image.to(dtype)
        if (image.dtype == ember.float32 and (dtype == ember.int32 or dtype == ember.int64)) or \
                (image.dtype == ember.float64 and dtype == ember.int64):
            raise RuntimeError(f"The cast from {image.dtype} to {dtype} cannot be performed safely.")
        eps = 1e-3  # keeps 1.0 below max + 1 so it maps to max, not past it
        return image.mul(_max(dtype) + 1.0 - eps).to(dtype)
    in_max = _max(image.dtype)
    if _is_float(dtype):
        return image.to(dtype) / in_max
    out_max = _max(dtype)
    if in_max > out_max:
        factor = (in_max + 1) // (out_max + 1)
        return ember.div(image, factor, rounding_mode="floor").to(dtype)
    factor = (out_max + 1) // (in_max + 1)
    return image.to(dtype) * factor


def normalize(tensor, mean: Any, std: Any, inplace: Any = False):
    if not isinstance(tensor, ember.Tensor):
        raise TypeError(f"Input tensor should be a torch tensor. Got {type(tensor)}.")
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.dim() < 3:
        raise ValueError(f"Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
                         f"{list(tensor.shape)}.")
    mean_t = ember.as_tensor(mean, dtype=tensor.dtype)
    std_t = ember.as_tensor(std, dtype=tensor.dtype)
    if bool((std_t == 0).any()):
        raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, leading to division by zero.")
    if mean_t.dim() == 1:
        mean_t = mean_t.reshape(-1, 1, 1)
    if std_t.dim() == 1:
        std_t = std_t.reshape(-1, 1, 1)
    if inplace:
        return tensor.sub_(mean_t).div_(std_t)
    return (tensor - mean_t) / std_t


def to_pil_image(pic, mode: Any = None):
    """CHW tensor or HWC ndarray -> PIL image; floats scale by 255 (torchvision's rules for the mode)."""
    if not (isinstance(pic, ember.Tensor) or isinstance(pic, np.ndarray)):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if isinstance(pic, ember.Tensor):
        if pic.dim() not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.dim()} dimensions.")
        if pic.dim() == 2:
            pic = pic.unsqueeze(0)
        if pic.shape[0] > 4:
            raise ValueError(f"pic should not have > 4 channels. Got {pic.shape[0]} channels.")
        if pic.is_floating_point() and mode != "F":
            pic = pic.mul(255).to(ember.uint8)
        arr = pic.permute(1, 2, 0).contiguous().numpy()
    else:
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        arr = pic[:, :, None] if pic.ndim == 2 else pic
        if arr.shape[-1] > 4:
            raise ValueError(f"pic should not have > 4 channels. Got {arr.shape[-1]} channels.")
    if arr.shape[2] == 1:
        arr = arr[:, :, 0]
        expected = "L" if arr.dtype == np.uint8 else _PIL_MODES_BY_DTYPE.get(arr.dtype)
        if mode is not None and expected is not None and mode != expected and not (mode == "F" and
                                                                                      expected == "F"):
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {arr.dtype}. Should be {expected}")
        mode = mode or expected
    else:
        choices = {2: ["LA"], 3: ["RGB", "YCbCr", "HSV"], 4: ["RGBA", "CMYK", "RGBX"]}[arr.shape[2]]
        if mode is not None and mode not in choices:
            raise ValueError(f"Only modes {choices} are supported for {arr.shape[2]}D inputs")
        mode = mode or choices[0]
        if arr.dtype != np.uint8:
            raise TypeError(f"Input type {arr.dtype} is not supported")
    if mode is None:
        raise TypeError(f"Input type {arr.dtype} is not supported")
    return Image.fromarray(np.ascontiguousarray(arr), mode=mode)
