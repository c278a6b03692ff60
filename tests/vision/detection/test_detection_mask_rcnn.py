"""Mask R-CNN: torchvision's parameter count (torchvision 0.18's MaskRCNN_ResNet50_FPN_Weights.COCO_V1
num_params, written out) and key layout, the mask loss against a NumPy reference, inference's per-class
mask selection, and train/eval forward passes (eval adds masks pasted into the input image's size)."""

import numpy as np
import pytest

import ember
import embervision.models as M
from embervision.models import detection as D
from embervision.models.detection.roi_mask import maskrcnn_inference, maskrcnn_loss


def test_maskrcnn_count_and_keys():
    model = D.maskrcnn_resnet50_fpn(weights_backbone=None)
    frozen = {id(p) for m in model.modules() if isinstance(m, ember.nn.BatchNorm2d) for p in m.parameters()}
    assert sum(p.numel() for p in model.parameters() if id(p) not in frozen) == 44401393
    keys = {k for k in model.state_dict() if k.startswith("roi_heads.mask_")}
    expected = {f"roi_heads.mask_head.{i}.0.{p}" for i in range(4) for p in ("weight", "bias")}
    expected |= {f"roi_heads.mask_predictor.{m}.{p}" for m in ("conv5_mask", "mask_fcn_logits")
                 for p in ("weight", "bias")}
    assert keys == expected
    assert tuple(model.state_dict()["roi_heads.mask_predictor.mask_fcn_logits.weight"].shape) == (91, 256, 1, 1)
    assert "maskrcnn_resnet50_fpn" in M.list_models(D)
    with pytest.raises(ValueError, match="num_classes should be None when mask_predictor is specified"):
        D.MaskRCNN(model.backbone, num_classes=3, mask_predictor=D.MaskRCNNPredictor(256, 256, 3))


def test_mask_heads_load_version_1_keys():
    heads = D.MaskRCNNHeads(4, (4, 4), 1)
    v1 = {k.replace(f"{i}.0.", f"mask_fcn{i + 1}."): v for k, v in heads.state_dict().items() for i in range(2)
          if k.startswith(f"{i}.0.")}
    fresh = D.MaskRCNNHeads(4, (4, 4), 1)
    fresh._load_from_state_dict(v1, "", {"version": 1}, True, [], [], [])
    assert set(v1) == {"0.0.weight", "0.0.bias", "1.0.weight", "1.0.bias"}


def test_mask_loss_against_numpy():
    # Proposal equal to the 8x8 image, M = 4: RoIAlign (aligned=False) averages 2 samples per bin, at
    # x = 0.5, 1.5 | 2.5, 3.5 | ...; bilinear on pixel centres at integers gives 1, 1 | 1, 0.5 | 0, 0 | 0, 0.
    gt = np.zeros((8, 8), dtype=np.float32)
    gt[:, :4] = 1  # left half
    logits = ember.randn(1, 3, 4, 4, generator=ember.Generator().manual_seed(0))
    loss = maskrcnn_loss(logits, [ember.tensor([[0.0, 0.0, 8.0, 8.0]])], [ember.tensor(gt[None])],
                         [ember.tensor([2])], [ember.tensor([0])])
    target = np.zeros((4, 4))
    target[:, 0], target[:, 1] = 1.0, 0.75
    x = logits[0, 2].numpy().astype(np.float64)
    ref = np.mean(np.maximum(x, 0) - x * target + np.log1p(np.exp(-np.abs(x))))
    np.testing.assert_allclose(float(loss), ref, rtol=1e-5)


def test_mask_inference_picks_each_detections_class():
    x = ember.arange(2 * 3 * 2 * 2, dtype=ember.float32).reshape(2, 3, 2, 2) / 10
    out = maskrcnn_inference(x, [ember.tensor([2]), ember.tensor([0])])
    np.testing.assert_allclose(out[0].numpy(), 1 / (1 + np.exp(-x[0:1, 2:3].numpy())), rtol=1e-6)
    np.testing.assert_allclose(out[1].numpy(), 1 / (1 + np.exp(-x[1:2, 0:1].numpy())), rtol=1e-6)


def test_maskrcnn_train_and_eval():
    ember.manual_seed(0)
    model = D.maskrcnn_resnet50_fpn(weights_backbone=None, num_classes=3, min_size=64, max_size=96,
                                    rpn_pre_nms_top_n_train=100, rpn_post_nms_top_n_train=50,
                                    box_batch_size_per_image=32, box_score_thresh=0.0, box_detections_per_img=5)
    masks = ember.zeros((1, 60, 80), dtype=ember.uint8)
    masks[0, 10:40, 20:50] = 1
    images = [ember.rand(3, 60, 80)]
    targets = [{"boxes": ember.tensor([[20.0, 10.0, 50.0, 40.0]]), "labels": ember.tensor([1]), "masks": masks}]
    model.train()
    losses = model(images, targets)
    assert set(losses) == {"loss_classifier", "loss_box_reg", "loss_mask", "loss_objectness", "loss_rpn_box_reg"}
    sum(losses.values()).backward()
    assert model.roi_heads.mask_predictor.mask_fcn_logits.weight.grad is not None
    with pytest.raises(ValueError, match="Every element of targets should have a masks key"):
        model(images, [{"boxes": targets[0]["boxes"], "labels": targets[0]["labels"]}])
    model.eval()
    with ember.no_grad():
        out = model(images)
    n = out[0]["boxes"].shape[0]
    assert n == 5 and tuple(out[0]["masks"].shape) == (n, 1, 60, 80)
    assert float(out[0]["masks"].min()) >= 0.0 and float(out[0]["masks"].max()) <= 1.0
