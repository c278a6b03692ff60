"""Image files in and out, as torchvision.io's image functions: the codecs are C++ ops on libjpeg-turbo
and libpng registered into ember's op table (ember.ops.image.*); these wrappers validate arguments and
accept a list of images, which decodes across ember's threads."""
from enum import Enum
from typing import List, Union

import ember
from ember import Tensor

__all__ = ["ImageReadMode", "read_file", "write_file", "decode_jpeg", "decode_png", "decode_image", "encode_jpeg",
           "encode_png", "read_image", "write_jpeg", "write_png"]


class ImageReadMode(Enum):
    """How to read an image: UNCHANGED as stored, or converted to GRAY, GRAY_ALPHA, RGB or RGB_ALPHA."""
    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4


def _ops():
    return ember.ops.image


def _mode_value(mode) -> int:
    if isinstance(mode, str):  # later torchvision also takes the mode's name, e.g. "RGB"
        try:
            mode = ImageReadMode[mode.upper()]
        except KeyError:
            raise ValueError(f"unknown image read mode '{mode}' (expected one of "
                             f"{', '.join(m.name for m in ImageReadMode)})") from None
    if not isinstance(mode, ImageReadMode):
        raise TypeError(f"mode should be an ImageReadMode, got {type(mode).__name__}")
    return mode.value


def _check_tensor(name: str, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}: expected a Tensor, got {type(value).__name__}")


def _check_list(name: str, values) -> None:
    if len(values) == 0:
        raise ValueError(f"{name}: the list of images is empty")
    for v in values:
        _check_tensor(name, v)


def _check_cpu(device) -> None:
    if ember.device(device).type != "cpu":
        raise ValueError(f"only CPU decoding is supported, got device={device!r}")


def read_file(path: str) -> Tensor:
    """The bytes of the file at `path` as a 1-D uint8 tensor."""
    return _ops().read_file(str(path))


def write_file(filename: str, data: Tensor) -> None:
    """Writes a 1-D uint8 tensor's bytes to `filename`."""
    _check_tensor("write_file", data)
    _ops().write_file(str(filename), data)


def decode_jpeg(input: Union[Tensor, List[Tensor]], mode: ImageReadMode = ImageReadMode.UNCHANGED,
                device: str = "cpu", apply_exif_orientation: bool = False) -> Union[Tensor, List[Tensor]]:
    """A JPEG's bytes (1-D uint8) to a uint8 [C, H, W] image; mode UNCHANGED, GRAY or RGB. A list of
    byte tensors decodes across ember's threads into a list of images."""
    _check_cpu(device)
    m = _mode_value(mode)
    if isinstance(input, (list, tuple)):
        _check_list("decode_jpeg", input)
        return list(_ops().decode_jpegs(list(input), m, bool(apply_exif_orientation)))
    _check_tensor("decode_jpeg", input)
    return _ops().decode_jpeg(input, m, bool(apply_exif_orientation))


def decode_png(input: Tensor, mode: ImageReadMode = ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False, *,
               allow_16_bits: bool = False) -> Tensor:
    """A PNG's bytes (1-D uint8) to a uint8 [C, H, W] image. 16-bit PNGs need allow_16_bits=True and
    come out as int32 holding 0..65535 (ember has no uint16; torchvision 0.12-0.16 did the same).
    apply_exif_orientation: turn the image upright by the Orientation of its eXIf chunk."""
    _check_tensor("decode_png", input)
    return _ops().decode_png(input, _mode_value(mode), bool(allow_16_bits), bool(apply_exif_orientation))


def decode_image(input: Union[Tensor, List[Tensor]], mode: ImageReadMode = ImageReadMode.UNCHANGED,
                 apply_exif_orientation: bool = False) -> Union[Tensor, List[Tensor]]:
    """A JPEG's or PNG's bytes (told apart by their signature) to a uint8 [C, H, W] image; a list decodes
    across ember's threads."""
    m = _mode_value(mode)
    if isinstance(input, (list, tuple)):
        _check_list("decode_image", input)
        return list(_ops().decode_images(list(input), m, bool(apply_exif_orientation)))
    _check_tensor("decode_image", input)
    return _ops().decode_image(input, m, bool(apply_exif_orientation))


def encode_jpeg(input: Union[Tensor, List[Tensor]], quality: int = 75) -> Union[Tensor, List[Tensor]]:
    """A uint8 [C, H, W] image (C 1 or 3) to a JPEG's bytes; quality 1..100."""
    if not 1 <= int(quality) <= 100:
        raise ValueError("Image quality should be a positive number between 1 and 100")
    if isinstance(input, (list, tuple)):
        _check_list("encode_jpeg", input)
        return [_ops().encode_jpeg(x, int(quality)) for x in input]
    _check_tensor("encode_jpeg", input)
    return _ops().encode_jpeg(input, int(quality))


def encode_png(input: Tensor, compression_level: int = 6) -> Tensor:
    """A uint8 [C, H, W] image (C 1..4) to a PNG's bytes; compression_level 0..9."""
    _check_tensor("encode_png", input)
    if not 0 <= int(compression_level) <= 9:
        raise ValueError("Compression level should be between 0 and 9")
    return _ops().encode_png(input, int(compression_level))


def read_image(path: str, mode: ImageReadMode = ImageReadMode.UNCHANGED,
               apply_exif_orientation: bool = False) -> Tensor:
    """Reads a JPEG or PNG file into a uint8 [C, H, W] image; a decoding failure names the file."""
    data = read_file(path)
    try:
        return decode_image(data, mode, apply_exif_orientation)
    except RuntimeError as e:
        raise RuntimeError(f"read_image: cannot decode '{path}': {e}") from None


def write_jpeg(input: Tensor, filename: str, quality: int = 75) -> None:
    """Encodes a uint8 [C, H, W] image as JPEG into `filename`."""
    write_file(filename, encode_jpeg(input, quality))


def write_png(input: Tensor, filename: str, compression_level: int = 6) -> None:
    """Encodes a uint8 [C, H, W] image as PNG into `filename`."""
    write_file(filename, encode_png(input, compression_level))
