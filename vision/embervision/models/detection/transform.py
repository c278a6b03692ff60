"""GeneralizedRCNNTransform: normalizes, resizes (shorter side to min_size, longer side at most max_size) and
batches the input images with their targets, and maps detections back to the original image sizes."""

import math
from typing import Dict, List, Optional, Tuple

import ember
from ember import Tensor, nn
from ember.nn import functional as F

from .image_list import ImageList
from .roi_mask import paste_masks_in_image


def _resize_image_and_masks(image: Tensor, self_min_size: int, self_max_size: int,
                            target: Optional[Dict[str, Tensor]] = None, fixed_size: Optional[Tuple[int, int]] = None
                            ) -> Tuple[Tensor, Optional[Dict[str, Tensor]]]:
    im_shape = image.shape[-2:]
    size: Optional[List[int]] = None
    scale_factor: Optional[float] = None
    recompute: Optional[bool] = None
    if fixed_size is not None:
        size = [fixed_size[1], fixed_size[0]]
    else:
        min_size, max_size = float(min(im_shape)), float(max(im_shape))
        scale_factor = min(self_min_size / min_size, self_max_size / max_size)
        recompute = True
    image = F.interpolate(image[None], size=size, scale_factor=scale_factor, mode="bilinear",
                          recompute_scale_factor=recompute, align_corners=False)[0]
    if target is not None and "masks" in target:
        mask = F.interpolate(target["masks"][:, None].float(), size=size, scale_factor=scale_factor,
                             recompute_scale_factor=recompute)[:, 0].byte()
        target["masks"] = mask
    return image, target


def resize_boxes(boxes: Tensor, original_size: List[int], new_size: List[int]) -> Tensor:
    """Scales (x1, y1, x2, y2) boxes from an image of original_size (h, w) to new_size."""
    ratio_height = float(new_size[0]) / float(original_size[0])
    ratio_width = float(new_size[1]) / float(original_size[1])
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    return ember.stack((xmin * ratio_width, ymin * ratio_height, xmax * ratio_width, ymax * ratio_height), dim=1)


def resize_keypoints(keypoints: Tensor, original_size: List[int], new_size: List[int]) -> Tensor:
    ratio_h = float(new_size[0]) / float(original_size[0])
    ratio_w = float(new_size[1]) / float(original_size[1])
    resized = keypoints.clone()
    resized[..., 0] *= ratio_w
    resized[..., 1] *= ratio_h
    return resized


class GeneralizedRCNNTransform(nn.Module):
    def __init__(self, min_size, max_size, image_mean, image_std, size_divisible=32, fixed_size=None, **kwargs):
        super().__init__()
        if not isinstance(min_size, (list, tuple)):
            min_size = (min_size,)
        self.min_size = min_size
        self.max_size = max_size
        self.image_mean = image_mean
        self.image_std = image_std
        self.size_divisible = size_divisible
        self.fixed_size = fixed_size
        self._skip_resize = kwargs.pop("_skip_resize", False)

    def forward(self, images: List[Tensor], targets: Optional[List[Dict[str, Tensor]]] = None
                ) -> Tuple[ImageList, Optional[List[Dict[str, Tensor]]]]:
        images = [img for img in images]
        if targets is not None:
            # Copy the dicts: resizing replaces their entries and the caller's targets must stay as given.
            targets_copy: List[Dict[str, Tensor]] = []
            for t in targets:
                data: Dict[str, Tensor] = {}
                for k, v in t.items():
                    data[k] = v
                targets_copy.append(data)
            targets = targets_copy
        for i in range(len(images)):
            image = images[i]
            target_index = targets[i] if targets is not None else None
            if image.dim() != 3:
                raise ValueError(f"images is expected to be a list of 3d tensors of shape [C, H, W], got {image.shape}")
            image = self.normalize(image)
            image, target_index = self.resize(image, target_index)
            images[i] = image
            if targets is not None and target_index is not None:
                targets[i] = target_index
        image_sizes = [img.shape[-2:] for img in images]
        batched = self.batch_images(images, size_divisible=self.size_divisible)
        image_sizes_list: List[Tuple[int, int]] = []
        for image_size in image_sizes:
            image_sizes_list.append((int(image_size[0]), int(image_size[1])))
        return ImageList(batched, image_sizes_list), targets

    def normalize(self, image: Tensor) -> Tensor:
        if not image.is_floating_point():
            raise TypeError(f"Expected input images to be of floating type (in range [0, 1]), but found type "
                            f"{image.dtype} instead")
        mean = ember.as_tensor(self.image_mean, dtype=image.dtype, device=image.device)
        std = ember.as_tensor(self.image_std, dtype=image.dtype, device=image.device)
        return (image - mean[:, None, None]) / std[:, None, None]

    def torch_choice(self, k: List[int]) -> int:
        """A random element of k (ember's RNG, so seeds reproduce it)."""
        index = int((ember.rand(1) * float(len(k))).item())
        return k[min(index, len(k) - 1)]

    def resize(self, image: Tensor, target: Optional[Dict[str, Tensor]] = None
               ) -> Tuple[Tensor, Optional[Dict[str, Tensor]]]:
        h, w = image.shape[-2:]
        if self.training:
            if self._skip_resize:
                return image, target
            size = self.torch_choice(list(self.min_size))
        else:
            size = self.min_size[-1]
        image, target = _resize_image_and_masks(image, size, self.max_size, target, self.fixed_size)
        if target is None:
            return image, target
        new_size = image.shape[-2:]
        target["boxes"] = resize_boxes(target["boxes"], [h, w], new_size)
        if "keypoints" in target:
            target["keypoints"] = resize_keypoints(target["keypoints"], [h, w], new_size)
        return image, target

    def max_by_axis(self, the_list: List[List[int]]) -> List[int]:
        maxes = list(the_list[0])
        for sublist in the_list[1:]:
            for index, item in enumerate(sublist):
                maxes[index] = max(maxes[index], item)
        return maxes

    def batch_images(self, images: List[Tensor], size_divisible: int = 32) -> Tensor:
        """Pads every image (bottom/right, zeros) to the largest size, rounded up to size_divisible."""
        max_size = self.max_by_axis([list(img.shape) for img in images])
        stride = float(size_divisible)
        max_size[1] = int(math.ceil(float(max_size[1]) / stride) * stride)
        max_size[2] = int(math.ceil(float(max_size[2]) / stride) * stride)
        batched = images[0].new_full([len(images)] + max_size, 0)
        for i, img in enumerate(images):
            batched[i, :img.shape[0], :img.shape[1], :img.shape[2]].copy_(img)
        return batched

    def postprocess(self, result: List[Dict[str, Tensor]], image_shapes: List[Tuple[int, int]],
                    original_image_sizes: List[Tuple[int, int]]) -> List[Dict[str, Tensor]]:
        if self.training:
            return result
        for i, (pred, im_s_pair, o_im_s_pair) in enumerate(zip(result, image_shapes, original_image_sizes)):
            im_s = [im_s_pair[0], im_s_pair[1]]
            o_im_s = [o_im_s_pair[0], o_im_s_pair[1]]
            result[i]["boxes"] = resize_boxes(pred["boxes"], im_s, o_im_s)
            if "masks" in pred:
                result[i]["masks"] = paste_masks_in_image(pred["masks"], result[i]["boxes"], o_im_s)
            if "keypoints" in pred:
                result[i]["keypoints"] = resize_keypoints(pred["keypoints"], im_s, o_im_s)
        return result

    def __repr__(self):
        return (f"{self.__class__.__name__}(\n    Normalize(mean={self.image_mean}, std={self.image_std})\n"
                f"    Resize(min_size={self.min_size}, max_size={self.max_size}, mode='bilinear')\n)")
