"""The recipe's detector: Faster R-CNN on a ResNet-18 FPN backbone (random init, trainable BatchNorm), sized
for small canvases holding 16-32 pixel digits: pyramid levels from stride 4 (each digit spans 4-8 cells of
the finest map, enough to read it), 128 FPN channels and a 256-wide box head to keep a CPU step short."""
from __future__ import annotations

from embervision.models import resnet18
from embervision.models.detection import AnchorGenerator, FasterRCNN, FastRCNNPredictor, TwoMLPHead
from embervision.models.detection.backbone_utils import BackboneWithFPN
from embervision.ops import MultiScaleRoIAlign


def digit_detector(num_classes, canvas=96, fpn_channels=128):
    body = resnet18()
    # ResNet-18's layer1-4 (strides 4-32, 64-512 channels) -> FPN levels "0".."3", plus "pool" (stride 64).
    backbone = BackboneWithFPN(body, {"layer1": "0", "layer2": "1", "layer3": "2", "layer4": "3"},
                               [64, 128, 256, 512], fpn_channels)
    anchors = AnchorGenerator(sizes=((16,), (32,), (64,), (128,), (256,)), aspect_ratios=((0.5, 1.0, 2.0),) * 5)
    # Boxes go to the level their size maps to (FPN's rule, canonical 224 px at level 4): digits land on "0".
    # One bilinear sample per bin (torchvision uses 2): RoIAlign's cost is a large part of a CPU step.
    roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=7, sampling_ratio=1)
    box_head = TwoMLPHead(fpn_channels * 7 * 7, 256)
    return FasterRCNN(backbone, min_size=canvas, max_size=canvas, rpn_anchor_generator=anchors,
                      box_roi_pool=roi_pool, box_head=box_head, box_predictor=FastRCNNPredictor(256, num_classes),
                      rpn_pre_nms_top_n_train=600, rpn_post_nms_top_n_train=300,
                      rpn_pre_nms_top_n_test=300, rpn_post_nms_top_n_test=100,
                      box_batch_size_per_image=64, box_detections_per_img=20)
