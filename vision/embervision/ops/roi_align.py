"""roi_align / ps_roi_align over ember.ops.vision's kernels, and their module forms."""

from typing import List, Union

import ember
from ember import Tensor, nn

from ._utils import autocast_fp32, pair, roi_tensor, script_roi_tensor


def roi_align(input: Tensor, boxes: Union[Tensor, List[Tensor]], output_size: List[int], spatial_scale: float = 1.0,
              sampling_ratio: int = -1, aligned: bool = False) -> Tensor:
    """Mask R-CNN's RoIAlign: boxes are a Tensor[K, 5] (image index, x1, y1, x2, y2) or a list of
    Tensor[L, 4] (one per image); returns Tensor[K, C, output_size]. Inside a CPU autocast region (eager or
    scripted) it runs in float32 and returns the input's dtype, as torchvision's autocast kernel does."""
    if ember.jit.is_scripting():  # output_size is a list of two ints there
        rois = script_roi_tensor(boxes)
        oh, ow = output_size[0], output_size[1]
    else:
        rois = roi_tensor(boxes)
        oh, ow = pair(output_size)
    if not ember.is_autocast_enabled("cpu"):
        return ember.ops.vision.roi_align(input, rois, float(spatial_scale), oh, ow, int(sampling_ratio),
                                          bool(aligned))
    out = ember.ops.vision.roi_align(autocast_fp32(input), autocast_fp32(rois), float(spatial_scale), oh, ow,
                                     int(sampling_ratio), bool(aligned))
    return out.to(input.dtype)


def ps_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1):
    """Position-sensitive RoIAlign (R-FCN): input channels are C_out * output_h * output_w."""
    rois = roi_tensor(boxes)
    oh, ow = pair(output_size)
    if not ember.is_autocast_enabled("cpu"):
        return ember.ops.vision.ps_roi_align(input, rois, float(spatial_scale), oh, ow, int(sampling_ratio))
    out = ember.ops.vision.ps_roi_align(autocast_fp32(input), autocast_fp32(rois), float(spatial_scale), oh, ow,
                                        int(sampling_ratio))
    return out.to(input.dtype)


class RoIAlign(nn.Module):
    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio
        self.aligned = aligned

    def forward(self, input, rois):
        return roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio, self.aligned)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned})")


class PSRoIAlign(nn.Module):
    def __init__(self, output_size, spatial_scale, sampling_ratio):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio

    def forward(self, input, rois):
        return ps_roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio})")
