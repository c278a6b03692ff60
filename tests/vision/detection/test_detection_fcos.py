"""FCOS: torchvision's parameter count (torchvision 0.18's FCOS_ResNet50_FPN_Weights.COCO_V1 num_params,
written out) and head keys, BoxLinearCoder and the point-to-box assignment against NumPy references,
generalized_box_iou_loss against hand-computed values, and train/eval forward passes."""

import numpy as np
import pytest

import ember
import embervision.models as M
from embervision.models import detection as D
from embervision.models.detection.fcos import BoxLinearCoder
from embervision.ops import generalized_box_iou_loss


def test_fcos_count_and_keys():
    model = D.fcos_resnet50_fpn(weights_backbone=None)
    frozen = {id(p) for m in model.modules() if isinstance(m, ember.nn.BatchNorm2d) for p in m.parameters()}
    assert sum(p.numel() for p in model.parameters() if id(p) not in frozen) == 32269600
    keys = {k for k in model.state_dict() if k.startswith("head.")}
    tower = {f"head.{h}.conv.{i}.{p}" for h in ("classification_head", "regression_head") for i in range(12)
             if i % 3 != 2 for p in ("weight", "bias")}
    ends = {f"head.{m}.{p}" for m in ("classification_head.cls_logits", "regression_head.bbox_reg",
                                      "regression_head.bbox_ctrness") for p in ("weight", "bias")}
    assert keys == tower | ends
    assert "fcos_resnet50_fpn" in M.list_models(D)


def test_box_linear_coder_against_numpy():
    ref = np.array([[0.0, 0.0, 8.0, 8.0], [16.0, 8.0, 32.0, 24.0]])
    boxes = np.array([[1.0, -2.0, 10.0, 6.0], [20.0, 0.0, 40.0, 30.0]])
    ctr = (ref[:, :2] + ref[:, 2:]) / 2
    size = np.concatenate([ref[:, 2:] - ref[:, :2]] * 2, 1)
    expected = np.concatenate([ctr - boxes[:, :2], boxes[:, 2:] - ctr], 1) / size
    coder = BoxLinearCoder(normalize_by_size=True)
    codes = coder.encode(ember.tensor(ref), ember.tensor(boxes))
    np.testing.assert_allclose(codes.numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(coder.decode(codes, ember.tensor(ref)).numpy(), boxes, rtol=1e-12)


def test_giou_loss_hand_computed():
    a = ember.tensor([[0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 4.0, 4.0]])
    b = ember.tensor([[1.0, 1.0, 3.0, 3.0], [2.0, 2.0, 3.0, 3.0], [0.0, 0.0, 4.0, 4.0]])
    # IoU 1/7 in a 3x3 hull (giou 1/7 - 2/9); disjoint unit boxes in a 3x3 hull (giou -7/9); identical (giou 1).
    expected = [1 - (1 / 7 - 2 / 9), 1 + 7 / 9, 0.0]
    np.testing.assert_allclose(generalized_box_iou_loss(a, b).numpy(), expected, rtol=1e-5, atol=1e-6)
    assert float(generalized_box_iou_loss(a, b, reduction="sum")) == pytest.approx(sum(expected), rel=1e-5)
    with pytest.raises(ValueError, match="Invalid Value for arg 'reduction'"):
        generalized_box_iou_loss(a, b, reduction="max")


def test_point_assignment_against_numpy():
    model = D.FCOS(D.fcos_resnet50_fpn(weights_backbone=None).backbone, num_classes=3)
    # Two levels of points: stride 8 (4x4 grid) and stride 16 (2x2 grid), as the anchor generator makes them.
    pts8 = [(x * 8, y * 8) for y in range(4) for x in range(4)]
    pts16 = [(x * 16, y * 16) for y in range(2) for x in range(2)]
    anchors = np.array([[x - 4, y - 4, x + 4, y + 4] for x, y in pts8] + [[x - 8, y - 8, x + 8, y + 8]
                                                                         for x, y in pts16], dtype=np.float32)
    gt = np.array([[2.0, 2.0, 20.0, 14.0], [-4.0, 10.0, 28.0, 40.0]], dtype=np.float32)
    got = model.match_points(ember.tensor(anchors), ember.tensor(gt), [16, 4]).numpy()

    expected = []
    for k, a in enumerate(anchors):
        cx, cy, size = (a[0] + a[2]) / 2, (a[1] + a[3]) / 2, a[2] - a[0]
        lo = 0 if k < 16 else size * 4
        hi = np.inf if k >= 16 else size * 8
        best, best_area = -1, None
        for j, (x0, y0, x1, y1) in enumerate(gt):
            d = np.array([cx - x0, cy - y0, x1 - cx, y1 - cy])
            near = max(abs(cx - (x0 + x1) / 2), abs(cy - (y0 + y1) / 2)) < 1.5 * size
            if near and d.min() > 0 and lo < d.max() < hi:
                area = (x1 - x0) * (y1 - y0)
                if best_area is None or area < best_area:
                    best, best_area = j, area
        expected.append(best)
    np.testing.assert_array_equal(got, expected)
    assert (got == 0).any() and (got == 1).any() and (got == -1).any()


def test_fcos_train_and_eval():
    ember.manual_seed(0)
    model = D.fcos_resnet50_fpn(weights_backbone=None, num_classes=4, min_size=96, max_size=128, score_thresh=0.0,
                                detections_per_img=10)
    images = [ember.rand(3, 96, 128), ember.rand(3, 80, 72)]
    targets = [{"boxes": ember.tensor([[10.0, 20.0, 60.0, 80.0]]), "labels": ember.tensor([1])},
               {"boxes": ember.zeros((0, 4)), "labels": ember.zeros((0,), dtype=ember.int64)}]
    model.train()
    losses = model(images, targets)
    assert set(losses) == {"classification", "bbox_regression", "bbox_ctrness"}
    total = sum(losses.values())
    assert bool(ember.isfinite(total))
    total.backward()
    model.eval()
    with ember.no_grad():
        out = model(images)
    assert [set(d) for d in out] == [{"boxes", "scores", "labels"}] * 2
    assert all(d["boxes"].shape[0] == 10 for d in out)
