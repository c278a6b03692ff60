"""embervision.utils, as torchvision.utils: make_grid/save_image, and drawing boxes, segmentation masks and
keypoints on uint8 images (boxes, labels and keypoints through Pillow's ImageDraw, labels in Pillow's
default font when none is given)."""
import math
import warnings
from typing import List, Optional, Tuple, Union

import numpy as np

import ember
from ember import Tensor

__all__ = ["make_grid", "save_image", "draw_bounding_boxes", "draw_segmentation_masks", "draw_keypoints"]

Color = Union[str, Tuple[int, int, int]]


def make_grid(tensor: Union[Tensor, List[Tensor]], nrow: int = 8, padding: int = 2, normalize: bool = False,
              value_range: Optional[Tuple[float, float]] = None, scale_each: bool = False,
              pad_value: float = 0.0) -> Tensor:
    """Images [B, C, H, W] (or a list of [C, H, W]) tiled into one [C, H', W'] image, `nrow` per row."""
    if not (isinstance(tensor, Tensor) or (isinstance(tensor, list) and all(isinstance(t, Tensor) for t in tensor))):
        raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
    if isinstance(tensor, list):
        tensor = ember.stack(tensor, dim=0)
    if tensor.dim() == 2:  # a single image H x W
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:  # a single image C x H x W
        if tensor.size(0) == 1:
            tensor = ember.cat((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 4 and tensor.size(1) == 1:  # single-channel images
        tensor = ember.cat((tensor, tensor, tensor), 1)
    if tensor.dim() != 4:
        raise ValueError(f"make_grid: expected images of 2 to 4 dimensions, got {tensor.dim()}")

    if normalize:
        tensor = tensor.clone()  # avoid modifying tensor in-place
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")

        def norm_ip(img, low, high):
            img.clamp_(min=low, max=high)
            img.sub_(low).div_(max(high - low, 1e-5))

        def norm_range(t, value_range):
            if value_range is not None:
                norm_ip(t, value_range[0], value_range[1])
            else:
                norm_ip(t, float(t.min()), float(t.max()))

        if scale_each:
            for t in tensor:  # loop over mini-batch dimension
                norm_range(t, value_range)
        else:
            norm_range(tensor, value_range)

    if tensor.size(0) == 1:
        return tensor.squeeze(0)

    nmaps = tensor.size(0)
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(float(nmaps) / xmaps))
    height, width = int(tensor.size(2) + padding), int(tensor.size(3) + padding)
    num_channels = tensor.size(1)
    grid = tensor.new_full((num_channels, height * ymaps + padding, width * xmaps + padding), pad_value)
    k = 0
    for y in range(ymaps):
        for x in range(xmaps):
            if k >= nmaps:
                break
            grid.narrow(1, y * height + padding, height - padding).narrow(
                2, x * width + padding, width - padding).copy_(tensor[k])
            k = k + 1
    return grid


def save_image(tensor: Union[Tensor, List[Tensor]], fp, format: Optional[str] = None, nrow: int = 8,
               padding: int = 2, normalize: bool = False, value_range: Optional[Tuple[float, float]] = None,
               scale_each: bool = False, pad_value: float = 0.0) -> None:
    """Saves images (values in [0, 1]) as one image file, tiled by make_grid; `format` as Pillow's save."""
    from PIL import Image
    grid = make_grid(tensor, nrow=nrow, padding=padding, normalize=normalize, value_range=value_range,
                     scale_each=scale_each, pad_value=pad_value)
    # round to the nearest integer in [0, 255], as torchvision does
    ndarr = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to(ember.uint8).numpy()
    Image.fromarray(ndarr).save(fp, format=format)


def _check_image(image, name: str, rgb_only: bool = False) -> None:
    if not isinstance(image, Tensor):
        raise TypeError(f"Tensor expected, got {type(image)}")
    if image.dtype != ember.uint8:
        raise ValueError(f"Tensor uint8 expected, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError("Pass individual images, not batches")
    if rgb_only and image.size(0) != 3:
        raise ValueError("Pass an RGB image. Other Image formats are not supported")
    if image.size(0) not in {1, 3}:
        raise ValueError("Only grayscale and RGB images are supported")


def _to_pil(image: Tensor):
    from PIL import Image
    if image.size(0) == 1:
        image = image.repeat(3, 1, 1)
    return Image.fromarray(np.ascontiguousarray(image.permute(1, 2, 0).numpy()))


def _from_pil(img) -> Tensor:
    return ember.from_numpy(np.array(img)).permute(2, 0, 1).contiguous().to(ember.uint8)


def _rgb(color: Color) -> Tuple[int, ...]:
    from PIL import ImageColor
    return ImageColor.getrgb(color) if isinstance(color, str) else tuple(int(c) for c in color)


def draw_bounding_boxes(image: Tensor, boxes: Tensor, labels: Optional[List[str]] = None,
                        colors: Optional[Union[List[Color], Color]] = None, fill: Optional[bool] = False,
                        width: int = 1, font: Optional[str] = None, font_size: Optional[int] = None) -> Tensor:
    """Boxes (xmin, ymin, xmax, ymax) drawn on a uint8 [C, H, W] image (C 1 or 3), optionally filled
    (alpha 100 of 255) and labelled; returns a uint8 [3, H, W] image."""
    from PIL import ImageDraw, ImageFont
    _check_image(image, "draw_bounding_boxes")
    if boxes.dim() != 2 or boxes.size(-1) != 4:
        raise ValueError(f"boxes must be of shape (num_boxes, 4), got {tuple(boxes.shape)}")
    if bool(((boxes[:, 0] > boxes[:, 2]) | (boxes[:, 1] > boxes[:, 3])).any()):
        raise ValueError("Boxes need to be in (xmin, ymin, xmax, ymax) format. Use embervision.ops.box_convert "
                         "to convert them")
    num_boxes = boxes.shape[0]
    if labels is not None and len(labels) != num_boxes:
        raise ValueError(f"Number of boxes ({num_boxes}) and labels ({len(labels)}) mismatch. Please specify "
                         f"labels for each box.")
    if isinstance(colors, (str, tuple)):
        colors = [colors] * num_boxes
    if colors is not None and len(colors) < num_boxes:
        raise ValueError(f"Number of colors ({len(colors)}) is less than number of boxes ({num_boxes}). ")
    if font is None:
        if font_size is not None:
            warnings.warn("Argument 'font_size' will be ignored since 'font' is not set.")
        txt_font = ImageFont.load_default()
    else:
        txt_font = ImageFont.truetype(font=font, size=font_size or 10)
    img_to_draw = _to_pil(image)
    draw = ImageDraw.Draw(img_to_draw, "RGBA" if fill else None)
    for i, bbox in enumerate(boxes.to(ember.int64).tolist()):
        color = None if colors is None else _rgb(colors[i])
        if fill:
            fill_color = (255, 255, 255, 100) if color is None else color + (100,)
            draw.rectangle(bbox, width=width, outline=color, fill=fill_color)
        else:
            draw.rectangle(bbox, width=width, outline=color)
        if labels is not None:
            margin = width + 1
            draw.text((bbox[0] + margin, bbox[1] + margin), labels[i], fill=color, font=txt_font)
    return _from_pil(img_to_draw)


def _default_palette(num: int) -> List[Tuple[int, int, int]]:
    """torchvision's default mask colors: i * (2^25 - 1, 2^15 - 1, 2^21 - 1) mod 255."""
    return [tuple(int((i * p) % 255) for p in (2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1)) for i in range(num)]


def draw_segmentation_masks(image: Tensor, masks: Tensor, alpha: float = 0.8,
                            colors: Optional[Union[List[Color], Color]] = None) -> Tensor:
    """Boolean masks [N, H, W] (or [H, W]) blended onto a uint8 RGB image with weight `alpha`."""
    _check_image(image, "draw_segmentation_masks", rgb_only=True)
    if masks.dim() == 2:
        masks = masks[None, :, :]
    if masks.dim() != 3:
        raise ValueError("masks must be of shape (H, W) or (batch_size, H, W)")
    if masks.dtype != ember.bool:
        raise ValueError(f"The masks must be of dtype bool. Got {masks.dtype}")
    if tuple(masks.shape[-2:]) != tuple(image.shape[-2:]):
        raise ValueError("The image and the masks must have the same height and width")
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    num_masks = masks.size(0)
    if isinstance(colors, (str, tuple)):
        colors = [colors] * num_masks
    if colors is None:
        colors = _default_palette(num_masks)
    if len(colors) < num_masks:
        raise ValueError(f"There are more masks ({num_masks}) than colors ({len(colors)})")
    img_to_draw = image.clone()
    for mask, color in zip(masks, colors):
        paint = ember.tensor(list(_rgb(color)), dtype=ember.uint8)[:, None, None]
        img_to_draw = ember.where(mask[None, :, :], paint, img_to_draw)
    out = image.to(ember.float32) * (1 - alpha) + img_to_draw.to(ember.float32) * alpha
    return out.to(ember.uint8)


def draw_keypoints(image: Tensor, keypoints: Tensor, connectivity: Optional[List[Tuple[int, int]]] = None,
                   colors: Optional[Color] = None, radius: int = 2, width: int = 3) -> Tensor:
    """Keypoints [num_instances, K, 2] drawn as filled circles of `radius`, joined by lines of `width`
    for each (start, end) pair of `connectivity`; returns a uint8 [3, H, W] image."""
    from PIL import ImageDraw
    _check_image(image, "draw_keypoints", rgb_only=True)
    if keypoints.dim() != 3 or keypoints.size(-1) != 2:
        raise ValueError("keypoints must be of shape (num_instances, K, 2)")
    img_to_draw = _to_pil(image)
    draw = ImageDraw.Draw(img_to_draw)
    fill = None if colors is None else _rgb(colors)
    for instance in keypoints.to(ember.int64).tolist():
        for x, y in instance:
            draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=fill, outline=None, width=0)
        for start, end in connectivity or []:
            if not (0 <= start < len(instance) and 0 <= end < len(instance)):
                raise ValueError(f"connectivity pair ({start}, {end}) is out of range for {len(instance)} keypoints")
            draw.line((tuple(instance[start]), tuple(instance[end])), width=width)  # default ink, as torchvision
    return _from_pil(img_to_draw)
