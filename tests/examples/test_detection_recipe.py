"""The detection recipe (examples/detection): its COCO-style mAP against hand-computed cases, its canvases'
exact boxes, and training: a short run's losses and evaluation, and a run interrupted after an epoch and
resumed from its checkpoint ending with the same weights as an uninterrupted run."""

import numpy as np
import pytest

import ember
from recipes import recipe_module


def _module(name):
    return recipe_module("detection", name)


def _img(boxes, labels, scores=None):
    d = {"boxes": np.array(boxes, dtype=np.float64).reshape(-1, 4), "labels": np.array(labels, dtype=np.int64)}
    if scores is not None:
        d["scores"] = np.array(scores, dtype=np.float64)
    return d


def test_map_hand_computed_cases():
    ev = _module("coco_eval")
    gt = [_img([[0, 0, 10, 10]], [1])]
    # Perfect detection: AP 1.
    assert ev.mean_average_precision([_img([[0, 0, 10, 10]], [1], [0.9])], gt) == 1.0
    # A false positive ranked above the true positive: precision 1/2 at every recall up to 1 -> AP 0.5.
    dets = [_img([[50, 50, 60, 60], [0, 0, 10, 10]], [1, 1], [0.9, 0.8])]
    assert ev.mean_average_precision(dets, gt) == pytest.approx(0.5)
    # The same, ranked the other way: the true positive first reaches recall 1 at precision 1 -> AP 1.
    dets = [_img([[50, 50, 60, 60], [0, 0, 10, 10]], [1, 1], [0.7, 0.8])]
    assert ev.mean_average_precision(dets, gt) == 1.0
    # Two ground truths, one found: precision 1 for recall 0..0.5 (51 of the 101 points), 0 beyond.
    gt2 = [_img([[0, 0, 10, 10], [20, 20, 30, 30]], [1, 1])]
    assert ev.mean_average_precision([_img([[0, 0, 10, 10]], [1], [0.9])], gt2) == pytest.approx(51 / 101)
    # A duplicate detection of a matched box is a false positive, but after the true positive: AP 1.
    dets = [_img([[0, 0, 10, 10], [0, 0, 10, 9]], [1, 1], [0.9, 0.8])]
    assert ev.mean_average_precision(dets, gt) == 1.0
    # IoU 0.5 exactly counts at threshold 0.5 (box half the ground truth); 0.45 does not.
    assert ev.mean_average_precision([_img([[0, 0, 10, 5]], [1], [0.9])], gt) == 1.0
    assert ev.mean_average_precision([_img([[0, 0, 10, 4.5]], [1], [0.9])], gt) == 0.0
    # A wrong label is a miss; classes without ground truth (label 2 here) do not enter the mean.
    assert ev.mean_average_precision([_img([[0, 0, 10, 10]], [2], [0.9])], gt) == 0.0
    # Two classes: one perfect (AP 1), one half (AP 0.5) -> mAP 0.75.
    gt3 = [_img([[0, 0, 10, 10], [40, 40, 50, 50]], [1, 2])]
    dets = [_img([[0, 0, 10, 10], [0, 0, 5, 5], [40, 40, 50, 50]], [1, 2, 2], [0.9, 0.8, 0.7])]
    assert ev.mean_average_precision(dets, gt3) == pytest.approx(0.75)
    # Over COCO's ten thresholds: a box of IoU 0.72 is a hit at 0.5..0.7 (5 of 10) -> 0.5.
    gt4 = [_img([[0, 0, 10, 10]], [1])]
    assert ev.mean_average_precision([_img([[0, 0, 10, 7.2]], [1], [0.9])], gt4,
                                     iou_thresholds=tuple(ev.COCO_THRESHOLDS)) == pytest.approx(0.5)
    # Detections are ranked across images; each image's ground truth matches its own detections only.
    gts = [_img([[0, 0, 10, 10]], [1]), _img([[0, 0, 10, 10]], [1])]
    dets = [_img([[0, 0, 10, 10]], [1], [0.5]), _img([[30, 30, 40, 40], [0, 0, 10, 10]], [1, 1], [0.9, 0.4])]
    # Ranked: FP (0.9), TP (0.5), TP (0.4): precision at recall 0.5 = 1/2, at recall 1 = 2/3 -> envelope 2/3.
    assert ev.mean_average_precision(dets, gts) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="got detections for 1 images but ground truth for 2"):
        ev.mean_average_precision(dets[:1], gts)


def test_canvases_have_exact_boxes_and_disjoint_digit_pools():
    data = _module("digit_canvases")
    train_pool, test_pool = data.split_digits(0)
    assert len(train_pool) + len(test_pool) == 1797 and not set(train_pool) & set(test_pool)
    ds = data.DigitCanvases(test_pool, 6, seed=3)
    for i in range(len(ds)):
        image, target = ds[i]
        img = image[0].numpy()
        assert tuple(image.shape) == (3, 96, 96) and np.array_equal(image[0].numpy(), image[2].numpy())
        boxes, labels = target["boxes"].numpy().astype(int), target["labels"].numpy()
        assert len(boxes) >= 1 and labels.min() >= 1 and labels.max() <= 10
        inside = np.zeros_like(img, dtype=bool)
        for x1, y1, x2, y2 in boxes:
            ink = img[y1:y2, x1:x2] > 0.2
            # Tight: ink on every edge row and column of the box.
            assert ink[0].any() and ink[-1].any() and ink[:, 0].any() and ink[:, -1].any()
            inside[y1:y2, x1:x2] = True
        assert not (img[~inside] > 0.2).any()  # no ink outside the boxes
    again = ds[2]
    assert np.array_equal(again[0].numpy(), ds[2][0].numpy())  # canvas i depends only on (seed, i)
    with pytest.raises(IndexError):
        ds[6]


def _args(tmp_path, *extra):
    train = _module("train")
    return train, train.parse_args(["--epochs", "2", "--canvases", "4", "--batch-size", "2", "--canvas", "64",
                                    "--test-canvases", "4", "--warmup", "1",
                                    "--checkpoint", str(tmp_path / "det.ckpt"), *extra])


def test_short_run_trains_evaluates_and_resumes_exactly(tmp_path, capsys):
    train, args = _args(tmp_path)
    model, summary = train.train(args)
    assert set(summary) == {"map50", "map"} and 0.0 <= summary["map"] <= summary["map50"] <= 1.0
    out = capsys.readouterr().out
    assert "held-out mAP@0.5" in out
    straight = {k: v.clone() for k, v in model.state_dict().items()}

    _, first = _args(tmp_path, "--stop-after", "1")
    (tmp_path / "det.ckpt").unlink()
    _, none = train.train(first)
    assert none is None
    _, resumed_args = _args(tmp_path, "--resume")
    resumed, _ = train.train(resumed_args)
    for k, v in resumed.state_dict().items():
        assert ember.equal(v, straight[k]), k
