"""The recipe's detector: Faster R-CNN on a ResNet-18 FPN backbone (random init, trainable BatchNorm), sized
for small canvases holding 16-32 pixel digits: pyramid levels at strides 8-64, anchors of 16-128 pixels."""
from __future__ import annotations

from embervision.models import resnet18
from embervision.models.detection import AnchorGenerator, FasterRCNN, FastRCNNPredictor, TwoMLPHead
from embervision.models.detection.backbone_utils import _resnet_fpn_extractor
from embervision.ops import MultiScaleRoIAlign


def digit_detector(num_classes, canvas=96):
    backbone = _resnet_fpn_extractor(resnet18(), trainable_layers=5, returned_layers=[2, 3, 4])
    anchors = AnchorGenerator(sizes=((16,), (32,), (64,), (128,)), aspect_ratios=((0.5, 1.0, 2.0),) * 4)
    # One bilinear sample per bin (torchvision uses 2): RoIAlign's cost is most of a step's on a CPU.
    roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2"], output_size=7, sampling_ratio=1)
    # A 256-wide box head (torchvision's is 1024): its first layer dominates a step's time on a CPU.
    box_head = TwoMLPHead(backbone.out_channels * 7 * 7, 256)
    return FasterRCNN(backbone, min_size=canvas, max_size=canvas, rpn_anchor_generator=anchors,
                      box_roi_pool=roi_pool, box_head=box_head, box_predictor=FastRCNNPredictor(256, num_classes),
                      rpn_pre_nms_top_n_train=600, rpn_post_nms_top_n_train=300,
                      rpn_pre_nms_top_n_test=300, rpn_post_nms_top_n_test=100,
                      box_batch_size_per_image=64, box_detections_per_img=20)
