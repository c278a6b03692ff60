"""MultiScaleRoIAlign: RoIAlign over a feature pyramid, each box pooled from the level its size maps to
(FPN paper, eq. 1)."""

import math
from typing import Dict, List, Tuple

import ember
from ember import Tensor, nn

from ._utils import convert_boxes_to_roi_format
from .boxes import box_area
from .roi_align import roi_align


@ember.jit.script
class LevelMapper:
    """Pyramid level of each box: floor(canonical_level + log2(sqrt(area) / canonical_scale)), clamped."""

    def __init__(self, k_min: int, k_max: int, canonical_scale: int = 224, canonical_level: int = 4,
                 eps: float = 1e-6):
        self.k_min = k_min
        self.k_max = k_max
        self.s0 = canonical_scale
        self.lvl0 = canonical_level
        self.eps = eps

    def __call__(self, boxlists: List[Tensor]) -> Tensor:
        s = ember.sqrt(ember.cat([box_area(b) for b in boxlists]))
        target_lvls = ember.floor(self.lvl0 + ember.log2(s / self.s0) + ember.tensor(self.eps, dtype=s.dtype))
        target_lvls = ember.clamp(target_lvls, min=self.k_min, max=self.k_max)
        return target_lvls.to(ember.int64) - self.k_min


def _infer_scale(feature: Tensor, original_size: List[int]) -> float:
    # Feature size / image size, rounded to a power of two; both axes must agree.
    possible: List[float] = []
    for s1, s2 in zip(feature.shape[-2:], original_size):
        possible.append(2 ** float(round(math.log2(float(s1) / float(s2)))))
    if possible[0] != possible[1]:
        raise ValueError(f"MultiScaleRoIAlign: the feature map {list(feature.shape[-2:])} has different scales "
                         f"along height and width relative to the image size {original_size}")
    return possible[0]


class MultiScaleRoIAlign(nn.Module):
    def __init__(self, featmap_names, output_size, sampling_ratio, *, canonical_scale=224, canonical_level=4):
        super().__init__()
        if isinstance(output_size, int):
            output_size = (output_size, output_size)
        self.featmap_names = featmap_names
        self.sampling_ratio = sampling_ratio
        self.output_size = tuple(output_size)
        self.scales = None
        self.map_levels = None
        self.canonical_scale = canonical_scale
        self.canonical_level = canonical_level

    def _scales_and_mapper(self, features: List[Tensor], image_shapes: List[Tuple[int, int]]
                           ) -> Tuple[List[float], LevelMapper]:
        if len(image_shapes) == 0:
            raise ValueError("images list should not be empty")
        max_x = 0
        max_y = 0
        for shape in image_shapes:
            max_x = max(shape[0], max_x)
            max_y = max(shape[1], max_y)
        original_size = [max_x, max_y]
        scales = [_infer_scale(f, original_size) for f in features]
        lvl_min = -math.log2(scales[0])
        lvl_max = -math.log2(scales[-1])
        return scales, LevelMapper(int(lvl_min), int(lvl_max), self.canonical_scale, self.canonical_level)

    def _setup_scales(self, features: List[Tensor], image_shapes: List[Tuple[int, int]]) -> None:
        self.scales, self.map_levels = self._scales_and_mapper(features, image_shapes)

    def forward(self, x: Dict[str, Tensor], boxes: List[Tensor], image_shapes: List[Tuple[int, int]]) -> Tensor:
        """x: feature maps by name; boxes: List[Tensor[L, 4]] in image coordinates; image_shapes: the
        (height, width) of each image before batching. Returns Tensor[K, C, output_size]. The scales are
        worked out on every call (eager code also keeps them in self.scales and self.map_levels)."""
        # Maps not named in featmap_names (e.g. the FPN's "pool" level) are skipped, as are names x lacks.
        features = [v for k, v in x.items() if k in self.featmap_names]
        scales, map_levels = self._scales_and_mapper(features, image_shapes)
        if not ember.jit.is_scripting():
            self.scales, self.map_levels = scales, map_levels
        rois = convert_boxes_to_roi_format(boxes)
        output_size = [self.output_size[0], self.output_size[1]]
        if len(features) == 1:
            return roi_align(features[0], rois, output_size, scales[0], self.sampling_ratio)
        levels = map_levels(boxes)
        num_rois, num_channels = rois.shape[0], features[0].shape[1]
        result = ember.zeros([num_rois, num_channels, output_size[0], output_size[1]], dtype=features[0].dtype,
                             device=features[0].device)
        for level, (feature, scale) in enumerate(zip(features, scales)):
            idx_in_level = ember.where(levels == level)[0]
            pooled = roi_align(feature, rois[idx_in_level], output_size, scale, self.sampling_ratio)
            result[idx_in_level] = pooled.to(result.dtype)
        return result

    def __repr__(self):
        return (f"{self.__class__.__name__}(featmap_names={self.featmap_names}, output_size={self.output_size}, "
                f"sampling_ratio={self.sampling_ratio})")
