"""nms / batched_nms against a plain NumPy greedy suppression written here."""

import numpy as np
import pytest

import ember
from embervision import ops


def reference_nms(boxes, scores, thresh):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])  # Python's sort is stable
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    keep, dropped = [], set()
    for a, i in enumerate(order):
        if i in dropped:
            continue
        keep.append(i)
        for j in order[a + 1:]:
            w = max(0.0, min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0]))
            h = max(0.0, min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1]))
            inter = w * h
            if inter / (area[i] + area[j] - inter) > thresh:
                dropped.add(j)
    return np.array(keep, dtype=np.int64)


def random_boxes(rng, n, dtype=np.float32):
    xy = rng.uniform(0, 50, size=(n, 2))
    wh = rng.uniform(1, 30, size=(n, 2))
    return np.concatenate([xy, xy + wh], axis=1).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("thresh", [0.2, 0.5, 0.8])
def test_nms_matches_reference(dtype, thresh):
    rng = np.random.default_rng(0)
    boxes = random_boxes(rng, 200, dtype)
    scores = rng.uniform(size=200).astype(dtype)
    got = ops.nms(ember.tensor(boxes), ember.tensor(scores), thresh)
    assert got.dtype == ember.int64
    np.testing.assert_array_equal(got.numpy(), reference_nms(boxes, scores, thresh))


def test_nms_ties_keep_input_order_and_threshold_is_strict():
    boxes = ember.tensor([[0.0, 0, 10, 10], [0, 0, 10, 10], [0, 0, 10, 5]])
    scores = ember.tensor([0.5, 0.5, 0.5])
    # Box 2 overlaps box 0 with IoU exactly 0.5: only IoU > threshold suppresses.
    assert ops.nms(boxes, scores, 0.5).tolist() == [0, 2]
    assert ops.nms(boxes, scores, 0.49).tolist() == [0]


def test_nms_empty():
    got = ops.nms(ember.zeros((0, 4)), ember.zeros(0), 0.5)
    assert got.shape == (0,) and got.dtype == ember.int64


def test_nms_bad_boxes_raise():
    with pytest.raises(RuntimeError, match="boxes should be a 2d tensor, got 1D"):
        ops.nms(ember.zeros(4), ember.zeros(1), 0.5)
    with pytest.raises(RuntimeError, match="boxes should have 4 elements in dimension 1, got 3"):
        ops.nms(ember.zeros((2, 3)), ember.zeros(2), 0.5)
    with pytest.raises(RuntimeError, match="same number of elements in dimension 0, got 2 and 3"):
        ops.nms(ember.zeros((2, 4)), ember.zeros(3), 0.5)
    with pytest.raises(ValueError, match="box 1 has a non-finite coordinate"):
        ops.nms(ember.tensor([[0.0, 0, 1, 1], [0, float("nan"), 1, 1]]), ember.zeros(2), 0.5)
    with pytest.raises(TypeError, match="same dtype"):
        ops.nms(ember.zeros((2, 4)), ember.zeros(2, dtype=ember.float64), 0.5)


def test_batched_nms_only_suppresses_within_a_category():
    rng = np.random.default_rng(1)
    boxes = random_boxes(rng, 120)
    scores = rng.uniform(size=120).astype(np.float32)
    idxs = rng.integers(0, 4, size=120)
    got = ops.batched_nms(ember.tensor(boxes), ember.tensor(scores), ember.tensor(idxs), 0.5).numpy()
    expected = np.concatenate([np.nonzero(idxs == c)[0][reference_nms(boxes[idxs == c], scores[idxs == c], 0.5)]
                               for c in range(4)])
    expected = expected[np.argsort(-scores[expected], kind="stable")]
    np.testing.assert_array_equal(got, expected)
    empty = ops.batched_nms(ember.zeros((0, 4)), ember.zeros(0), ember.zeros(0, dtype=ember.int64), 0.5)
    assert empty.shape == (0,) and empty.dtype == ember.int64
