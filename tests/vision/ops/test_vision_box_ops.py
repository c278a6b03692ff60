"""Box utilities against formulas written out in NumPy here, and sigmoid_focal_loss against its formula."""

import math

import numpy as np
import pytest

import ember
from embervision import ops

B1 = np.array([[0.0, 0, 10, 10], [5, 5, 15, 25], [2, 3, 4, 9]])
B2 = np.array([[0.0, 0, 10, 10], [20, 20, 30, 30], [1, 2, 8, 6], [6, 0, 12, 7]])


def pairwise(fn):
    return np.array([[fn(a, b) for b in B2] for a in B1])


def area(b):
    return (b[2] - b[0]) * (b[3] - b[1])


def inter(a, b):
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def iou(a, b):
    i = inter(a, b)
    return i / (area(a) + area(b) - i)


def enclosing(a, b):
    return [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]


def giou(a, b):
    c = area(enclosing(a, b))
    u = area(a) + area(b) - inter(a, b)
    return iou(a, b) - (c - u) / c


def diou(a, b, eps=1e-7):
    e = enclosing(a, b)
    diag = (e[2] - e[0]) ** 2 + (e[3] - e[1]) ** 2 + eps
    dist = ((a[0] + a[2]) / 2 - (b[0] + b[2]) / 2) ** 2 + ((a[1] + a[3]) / 2 - (b[1] + b[3]) / 2) ** 2
    return iou(a, b) - dist / diag


def ciou(a, b, eps=1e-7):
    v = 4 / math.pi**2 * (math.atan((a[2] - a[0]) / (a[3] - a[1])) - math.atan((b[2] - b[0]) / (b[3] - b[1]))) ** 2
    alpha = v / (1 - iou(a, b) + v + eps)
    return diou(a, b, eps) - alpha * v


@pytest.mark.parametrize("fn,ref", [(ops.box_iou, iou), (ops.generalized_box_iou, giou),
                                    (ops.distance_box_iou, diou), (ops.complete_box_iou, ciou)])
def test_pairwise_ious(fn, ref):
    got = fn(ember.tensor(B1), ember.tensor(B2))
    assert tuple(got.shape) == (3, 4)
    np.testing.assert_allclose(got.numpy(), pairwise(ref), rtol=1e-12, atol=1e-12)


def test_iou_of_integer_boxes_and_bad_shapes():
    got = ops.box_iou(ember.tensor(B1.astype(np.int64)), ember.tensor(B2.astype(np.int64)))
    np.testing.assert_allclose(got.numpy(), pairwise(iou), rtol=1e-6)
    with pytest.raises(ValueError, match=r"Tensor\[N, 4\]"):
        ops.box_iou(ember.zeros((2, 3)), ember.zeros((2, 4)))


def test_box_area_convert_clip_remove_small():
    np.testing.assert_allclose(ops.box_area(ember.tensor(B1)).numpy(), [area(b) for b in B1])
    xyxy = ember.tensor(B1)
    xywh = ops.box_convert(xyxy, "xyxy", "xywh")
    np.testing.assert_allclose(xywh.numpy(), np.c_[B1[:, :2], B1[:, 2:] - B1[:, :2]])
    cxcywh = ops.box_convert(xywh, "xywh", "cxcywh")
    np.testing.assert_allclose(cxcywh.numpy(), np.c_[(B1[:, :2] + B1[:, 2:]) / 2, B1[:, 2:] - B1[:, :2]])
    np.testing.assert_allclose(ops.box_convert(cxcywh, "cxcywh", "xyxy").numpy(), B1)
    with pytest.raises(ValueError, match="Unsupported Bounding Box Conversions"):
        ops.box_convert(xyxy, "xyxy", "yxyx")
    clipped = ops.clip_boxes_to_image(ember.tensor([[-3.0, 2, 50, 9], [1, -1, 4, 40]]), (20, 30))
    np.testing.assert_allclose(clipped.numpy(), [[0, 2, 30, 9], [1, 0, 4, 20]])
    keep = ops.remove_small_boxes(ember.tensor([[0.0, 0, 1, 5], [0, 0, 2, 2], [0, 0, 5, 1.9]]), 2.0)
    assert keep.tolist() == [1]


def test_masks_to_boxes():
    masks = np.zeros((2, 6, 7), dtype=np.uint8)
    masks[0, 1:4, 2:6] = 1
    masks[1, 5, 0] = 1
    masks[1, 2, 3] = 1
    got = ops.masks_to_boxes(ember.tensor(masks))
    assert got.dtype == ember.float32
    np.testing.assert_allclose(got.numpy(), [[2, 1, 5, 3], [0, 2, 3, 5]])
    assert tuple(ops.masks_to_boxes(ember.zeros((0, 4, 4))).shape) == (0, 4)
    with pytest.raises(ValueError, match="mask 0 is empty"):
        ops.masks_to_boxes(ember.zeros((1, 4, 4)))


def test_sigmoid_focal_loss_formula():
    rng = np.random.default_rng(0)
    x, t = rng.normal(size=(4, 5)), (rng.uniform(size=(4, 5)) > 0.5).astype(np.float64)
    p = 1 / (1 + np.exp(-x))
    ce = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    p_t = p * t + (1 - p) * (1 - t)
    expected = (0.25 * t + 0.75 * (1 - t)) * ce * (1 - p_t) ** 2
    got = ops.sigmoid_focal_loss(ember.tensor(x), ember.tensor(t))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10)
    np.testing.assert_allclose(ops.sigmoid_focal_loss(ember.tensor(x), ember.tensor(t), reduction="sum").item(),
                               expected.sum(), rtol=1e-10)
    np.testing.assert_allclose(ops.sigmoid_focal_loss(ember.tensor(x), ember.tensor(t), alpha=-1, gamma=0,
                                                      reduction="mean").item(), ce.mean(), rtol=1e-10)
    with pytest.raises(ValueError, match="Invalid Value for arg 'reduction'"):
        ops.sigmoid_focal_loss(ember.tensor(x), ember.tensor(t), reduction="max")
