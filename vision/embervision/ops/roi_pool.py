"""roi_pool / ps_roi_pool over ember.ops.vision's kernels, and their module forms."""

import ember
from ember import nn

from ._utils import autocast_fp32, pair, roi_tensor


def _in_fp32_under_autocast(op, input, rois, *args):
    """torchvision's autocast kernel: inside a CPU autocast region the op runs in float32 and the result comes
    back in the input's dtype."""
    if not ember.is_autocast_enabled("cpu"):
        return op(input, rois, *args)
    return op(autocast_fp32(input), autocast_fp32(rois), *args).to(input.dtype)


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Fast R-CNN's RoIPool: max over each bin of the box snapped to the feature grid."""
    rois = roi_tensor(boxes)
    oh, ow = pair(output_size)
    return _in_fp32_under_autocast(ember.ops.vision.roi_pool, input, rois, float(spatial_scale), oh, ow)


def ps_roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Position-sensitive RoIPool (R-FCN): the average of each bin over its own channel group."""
    rois = roi_tensor(boxes)
    oh, ow = pair(output_size)
    return _in_fp32_under_autocast(ember.ops.vision.ps_roi_pool, input, rois, float(spatial_scale), oh, ow)


class RoIPool(nn.Module):
    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, input, rois):
        return roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self):
        return f"{self.__class__.__name__}(output_size={self.output_size}, spatial_scale={self.spatial_scale})"


class PSRoIPool(RoIPool):
    def forward(self, input, rois):
        return ps_roi_pool(input, rois, self.output_size, self.spatial_scale)
