"""GeneralizedRCNN: transform -> backbone -> region proposals -> RoI heads -> detections mapped back to the
input sizes. Training returns the losses, eval the detections; the input checks detectors share."""

from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

import ember
from ember import Tensor, nn



def check_training_targets(targets: Optional[List[Dict[str, Tensor]]]) -> None:
    """Training needs targets whose boxes are Tensor[N, 4] (AssertionError otherwise, as torch._assert)."""
    if targets is None:
        ember._assert(False, "targets should not be none when in training mode")
        return
    for target in targets:
        boxes = target["boxes"]
        if ember.jit.is_scripting():  # Dict[str, Tensor] holds only tensors
            ember._assert(len(boxes.shape) == 2 and boxes.shape[-1] == 4,
                          f"Expected target boxes to be a tensor of shape [N, 4], got {boxes.shape}.")
        elif isinstance(boxes, ember.Tensor):
            ember._assert(len(boxes.shape) == 2 and boxes.shape[-1] == 4,
                          f"Expected target boxes to be a tensor of shape [N, 4], got {boxes.shape}.")
        else:
            ember._assert(False, f"Expected target boxes to be of type Tensor, got {type(boxes)}.")


def original_sizes(images: List[Tensor]) -> List[Tuple[int, int]]:
    sizes = ember.jit.annotate(List[Tuple[int, int]], [])
    for img in images:
        val = img.shape[-2:]
        ember._assert(len(val) == 2,
                      f"expecting the last two dimensions of the Tensor to be H and W instead got {img.shape[-2:]}")
        sizes.append((int(val[0]), int(val[1])))
    return sizes


def check_degenerate_boxes(targets: Optional[List[Dict[str, Tensor]]]) -> None:
    """Boxes with x2 <= x1 or y2 <= y1 (after the transform) are rejected: they make the losses NaN."""
    if targets is None:
        return
    for target_idx, target in enumerate(targets):
        boxes = target["boxes"]
        degenerate_boxes = boxes[:, 2:] <= boxes[:, :2]
        if degenerate_boxes.any():
            bb_idx = ember.where(degenerate_boxes.any(dim=1))[0][0]
            degen_bb: List[float] = boxes[bb_idx].tolist()
            ember._assert(False, "All bounding boxes should have positive height and width. "
                                 f"Found invalid box {degen_bb} for target at index {target_idx}.")


class GeneralizedRCNN(nn.Module):
    def __init__(self, backbone, rpn, roi_heads, transform):
        super().__init__()
        self.transform = transform
        self.backbone = backbone
        self.rpn = rpn
        self.roi_heads = roi_heads

    @ember.jit.unused
    def eager_outputs(self, losses: Dict[str, Tensor],
                      detections: List[Dict[str, Tensor]]) -> Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]:
        return losses if self.training else detections

    def forward(self, images: List[Tensor], targets: Optional[List[Dict[str, Tensor]]] = None
                ) -> Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]:
        """images: List[Tensor[C, H, W]] (floats in [0, 1]); targets (training): List[Dict] with boxes
        (FloatTensor[N, 4], x1 y1 x2 y2) and labels (Int64Tensor[N]). Returns the losses (training) or
        List[Dict[str, Tensor]] with boxes, labels, scores per image (eval). Scripted, it returns the tuple
        (losses, detections) in both modes, as torchvision's scripted detectors do."""
        if self.training:
            check_training_targets(targets)
        original_image_sizes = original_sizes(images)
        images, targets = self.transform(images, targets)
        check_degenerate_boxes(targets)
        features = self.backbone(images.tensors)
        if isinstance(features, ember.Tensor):
            features = OrderedDict([("0", features)])
        proposals, proposal_losses = self.rpn(images, features, targets)
        detections, detector_losses = self.roi_heads(features, proposals, images.image_sizes, targets)
        detections = self.transform.postprocess(detections, images.image_sizes, original_image_sizes)
        losses: Dict[str, Tensor] = {}
        losses.update(detector_losses)
        losses.update(proposal_losses)
        if ember.jit.is_scripting():
            return losses, detections
        return self.eager_outputs(losses, detections)
