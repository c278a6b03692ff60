"""SSD300: torchvision's parameter count (torchvision 0.18's SSD300_VGG16_Weights.COCO_V1 num_params, written
out) and key layout, DefaultBoxGenerator and hard negative mining against NumPy references, train/eval."""

import math

import numpy as np

import ember
import embervision.models as M
from embervision.models import detection as D
from embervision.models.detection.image_list import ImageList


def test_ssd300_count_and_keys():
    model = D.ssd300_vgg16(weights_backbone=None)
    assert sum(p.numel() for p in model.parameters()) == 35641826
    keys = set(model.state_dict())
    expected_some = {"backbone.scale_weight", "backbone.features.0.weight", "backbone.features.21.bias",
                     "backbone.extra.0.1.weight", "backbone.extra.0.7.1.weight", "backbone.extra.0.7.3.bias",
                     "backbone.extra.4.2.weight", "head.classification_head.module_list.5.weight",
                     "head.regression_head.module_list.0.bias"}
    assert expected_some <= keys
    # 4 or 6 default boxes per location on the six maps (38, 19, 10, 5, 3, 1): 8732 boxes.
    sd = model.state_dict()
    assert [tuple(sd[f"head.regression_head.module_list.{i}.weight"].shape)[0] for i in range(6)] == [16, 24, 24, 24,
                                                                                                       16, 16]
    assert "ssd300_vgg16" in M.list_models(D)


def test_default_boxes_against_numpy():
    gen = D.DefaultBoxGenerator([[2], [2, 3]], scales=[0.2, 0.5, 0.9], steps=[8, 16])
    assert gen.num_anchors_per_location() == [4, 6]
    images = ImageList(ember.zeros(1, 3, 32, 32), [(32, 32)])
    boxes = gen(images, [ember.zeros(1, 1, 4, 4), ember.zeros(1, 1, 2, 2)])[0].numpy()
    expected = []
    for k, (grid, step, ars) in enumerate([(4, 8, [2]), (2, 16, [2, 3])]):
        s, s_next = [0.2, 0.5, 0.9][k], [0.2, 0.5, 0.9][k + 1]
        whs = [(s, s), (math.sqrt(s * s_next),) * 2]
        for ar in ars:
            whs += [(s * math.sqrt(ar), s / math.sqrt(ar)), (s / math.sqrt(ar), s * math.sqrt(ar))]
        for y in range(grid):
            for x in range(grid):
                cx, cy = (x + 0.5) / (32 / step), (y + 0.5) / (32 / step)
                for w, h in whs:
                    w, h = min(w, 1.0), min(h, 1.0)
                    expected.append([(cx - w / 2) * 32, (cy - h / 2) * 32, (cx + w / 2) * 32, (cy + h / 2) * 32])
    np.testing.assert_allclose(boxes, np.array(expected), rtol=1e-5, atol=1e-5)


def test_hard_negative_mining_against_numpy():
    model = D.SSD(ember.nn.Identity(), D.DefaultBoxGenerator([[2]]), (32, 32), 3, head=ember.nn.Identity())
    logits = ember.randn(1, 8, 3, generator=ember.Generator().manual_seed(1))
    anchors = [ember.tensor([[0.0, 0.0, 10.0, 10.0]] * 8)]
    matched = [ember.tensor([0, -1, -1, -1, -1, -1, -1, -1])]  # one positive: 3 hardest negatives kept
    targets = [{"boxes": ember.tensor([[0.0, 0.0, 10.0, 10.0]]), "labels": ember.tensor([2])}]
    out = model.compute_loss(targets, {"cls_logits": logits, "bbox_regression": ember.zeros(1, 8, 4)}, anchors,
                             matched)
    x = logits[0].numpy().astype(np.float64)
    ce = np.log(np.exp(x).sum(1)) - x[np.arange(8), [2, 0, 0, 0, 0, 0, 0, 0]]
    expected = ce[0] + np.sort(ce[1:])[::-1][:3].sum()
    np.testing.assert_allclose(float(out["classification"]), expected, rtol=1e-5)
    assert float(out["bbox_regression"]) == 0.0  # the positive's box is its anchor: zero deltas


def test_ssd_train_and_eval():
    ember.manual_seed(0)
    model = D.ssd300_vgg16(weights_backbone=None, num_classes=4, detections_per_img=7)
    images = [ember.rand(3, 120, 160), ember.rand(3, 100, 90)]
    targets = [{"boxes": ember.tensor([[10.0, 20.0, 60.0, 80.0]]), "labels": ember.tensor([1])},
               {"boxes": ember.tensor([[5.0, 5.0, 40.0, 50.0]]), "labels": ember.tensor([3])}]
    model.train()
    losses = model(images, targets)
    assert set(losses) == {"bbox_regression", "classification"}
    sum(losses.values()).backward()
    model.eval()
    with ember.no_grad():
        out = model(images)
    assert [tuple(d["boxes"].shape) for d in out] == [(7, 4), (7, 4)]
    assert float(out[1]["boxes"][:, 2].max()) <= 90 + 1e-3  # mapped back to the 100x90 input


def test_ssdlite_count_keys_train_and_eval():
    # torchvision 0.18's SSDLite320_MobileNet_V3_Large_Weights.COCO_V1 num_params (reduced-tail MobileNetV3).
    model = D.ssdlite320_mobilenet_v3_large(weights_backbone=None)
    assert sum(p.numel() for p in model.parameters()) == 3440060
    keys = set(model.state_dict())
    assert {"backbone.features.0.0.0.weight", "backbone.features.0.13.0.weight", "backbone.features.1.0.1.0.weight",
            "backbone.features.1.0.2.fc1.weight",  # Sequential slices keep their names, as in PyTorch
            "backbone.extra.3.2.1.running_var", "head.classification_head.module_list.0.0.0.weight",
            "head.regression_head.module_list.5.1.bias"} <= keys
    assert model.transform.fixed_size == (320, 320) and model.score_thresh == 0.001
    ember.manual_seed(0)
    small = D.ssdlite320_mobilenet_v3_large(weights_backbone=None, num_classes=3, detections_per_img=5)
    # Two images: the last extra block's map is 1x1, and BatchNorm needs more than one value per channel.
    images = [ember.rand(3, 64, 80), ember.rand(3, 50, 50)]
    small.train()
    losses = small(images, [{"boxes": ember.tensor([[4.0, 6.0, 40.0, 50.0]]), "labels": ember.tensor([2])},
                            {"boxes": ember.tensor([[10.0, 10.0, 30.0, 20.0]]), "labels": ember.tensor([1])}])
    assert set(losses) == {"bbox_regression", "classification"}
    sum(losses.values()).backward()
    small.eval()
    with ember.no_grad():
        out = small(images)
    assert tuple(out[0]["boxes"].shape) == (5, 4) and out[0]["labels"].dtype == ember.int64
