"""DefaultBoxGenerator (SSD's default boxes): per feature map k, boxes of scale s_k and sqrt(s_k * s_k+1) plus
one pair per aspect ratio, centred on every cell, as fractions of the image, then in pixels."""

import math
from typing import List

import ember
from ember import Tensor, nn

from .image_list import ImageList


class DefaultBoxGenerator(nn.Module):
    def __init__(self, aspect_ratios, min_ratio=0.15, max_ratio=0.9, scales=None, steps=None, clip=True):
        super().__init__()
        if steps is not None and len(aspect_ratios) != len(steps):
            raise ValueError("aspect_ratios and steps should have the same length")
        self.aspect_ratios = aspect_ratios
        self.steps = steps
        self.clip = clip
        num_outputs = len(aspect_ratios)
        if scales is None:
            if num_outputs > 1:
                range_ratio = max_ratio - min_ratio
                self.scales = [min_ratio + range_ratio * k / (num_outputs - 1.0) for k in range(num_outputs)]
                self.scales.append(1.0)
            else:
                self.scales = [min_ratio, max_ratio]
        else:
            self.scales = scales
        self._wh_pairs = self._generate_wh_pairs(num_outputs)

    def _generate_wh_pairs(self, num_outputs, dtype=ember.float32, device=None):
        wh_pairs_all = []
        for k in range(num_outputs):
            s_k = self.scales[k]
            s_prime_k = math.sqrt(self.scales[k] * self.scales[k + 1])
            wh_pairs = [[s_k, s_k], [s_prime_k, s_prime_k]]
            for ar in self.aspect_ratios[k]:
                sq_ar = math.sqrt(ar)
                w, h = self.scales[k] * sq_ar, self.scales[k] / sq_ar
                wh_pairs.extend([[w, h], [h, w]])
            wh_pairs_all.append(ember.as_tensor(wh_pairs, dtype=dtype, device=device))
        return wh_pairs_all

    def num_anchors_per_location(self) -> List[int]:
        return [2 + 2 * len(r) for r in self.aspect_ratios]

    def _grid_default_boxes(self, grid_sizes: List[List[int]], image_size: List[int], dtype: int = ember.float32
                            ) -> Tensor:
        """All maps' default boxes as (cx, cy, w, h) fractions of the image."""
        default_boxes: List[Tensor] = []
        for k, f_k in enumerate(grid_sizes):
            if self.steps is not None:
                x_f_k, y_f_k = image_size[1] / self.steps[k], image_size[0] / self.steps[k]
            else:
                y_f_k, x_f_k = float(f_k[0]), float(f_k[1])
            shifts_x = ((ember.arange(0, f_k[1]) + 0.5) / x_f_k).to(dtype=dtype)
            shifts_y = ((ember.arange(0, f_k[0]) + 0.5) / y_f_k).to(dtype=dtype)
            grids = ember.meshgrid([shifts_y, shifts_x], indexing="ij")
            shift_x, shift_y = grids[1].reshape(-1), grids[0].reshape(-1)
            # (x, y) once per default box of the cell: the pair repeated along the last dim, then as rows
            shifts = ember.stack([shift_x, shift_y], dim=-1).repeat(1, len(self._wh_pairs[k])).reshape(-1, 2)
            # Sizes are clipped to the image in (cx, cy, w, h) form, before conversion to corners.
            wh = self._wh_pairs[k].clamp(min=0, max=1) if self.clip else self._wh_pairs[k]
            default_boxes.append(ember.cat((shifts, wh.repeat(f_k[0] * f_k[1], 1)), dim=1))
        return ember.cat(default_boxes, dim=0)

    def __repr__(self):
        return (f"{self.__class__.__name__}(aspect_ratios={self.aspect_ratios}, clip={self.clip}, "
                f"scales={self.scales}, steps={self.steps})")

    def forward(self, image_list: ImageList, feature_maps: List[Tensor]) -> List[Tensor]:
        grid_sizes = [fm.shape[-2:] for fm in feature_maps]
        image_size = image_list.tensors.shape[-2:]
        dtype = feature_maps[0].dtype
        boxes = self._grid_default_boxes(grid_sizes, image_size, dtype=dtype)
        x_y_size = ember.tensor([image_size[1], image_size[0]], dtype=dtype)
        corners = ember.cat([(boxes[:, :2] - 0.5 * boxes[:, 2:]) * x_y_size,
                             (boxes[:, :2] + 0.5 * boxes[:, 2:]) * x_y_size], -1)
        return [corners for _ in image_list.image_sizes]
