"""COCO-style mean average precision for box detections, written for the recipe (no pycocotools): per
class, detections sorted by score are matched greedily to the unmatched ground truth they overlap most
(IoU >= threshold); precision is made monotone and read at 101 recall points; AP is their mean. Classes
without ground truth are left out of the mean, as COCOeval does. At most max_dets detections per image."""
from __future__ import annotations

import numpy as np

RECALL_POINTS = np.linspace(0.0, 1.0, 101)
COCO_THRESHOLDS = np.linspace(0.5, 0.95, 10)


def iou_matrix(a, b):
    """IoU of boxes a [N, 4] against b [M, 4] (x1, y1, x2, y2)."""
    a, b = np.asarray(a, dtype=np.float64).reshape(-1, 4), np.asarray(b, dtype=np.float64).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(rb - lt, 0, None).prod(-1)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _as_numpy(d):
    return {k: (v.numpy() if hasattr(v, "numpy") else np.asarray(v)) for k, v in d.items()}


def class_average_precision(dets, gts, label, iou_threshold):
    """AP of one class. dets/gts: per-image dicts of NumPy arrays; None when the class has no ground truth."""
    n_gt = sum(int((g["labels"] == label).sum()) for g in gts)
    if n_gt == 0:
        return None
    records = []  # (score, image index, box)
    for i, d in enumerate(dets):
        for box, score in zip(d["boxes"][d["labels"] == label], d["scores"][d["labels"] == label]):
            records.append((-float(score), i, box))
    records.sort(key=lambda r: (r[0], r[1]))  # by decreasing score; ties by image, as a stable sort would
    matched = [np.zeros(int((g["labels"] == label).sum()), dtype=bool) for g in gts]
    tp = np.zeros(len(records))
    for j, (_, i, box) in enumerate(records):
        gt_boxes = gts[i]["boxes"][gts[i]["labels"] == label]
        if len(gt_boxes) == 0:
            continue
        ious = iou_matrix(box[None], gt_boxes)[0]
        ious[matched[i]] = -1.0  # each ground truth matches at most one detection
        best = int(np.argmax(ious))
        if ious[best] >= iou_threshold:
            matched[i][best] = True
            tp[j] = 1
    if len(records) == 0:
        return 0.0
    tp_cum = np.cumsum(tp)
    recall = tp_cum / n_gt
    precision = tp_cum / np.arange(1, len(records) + 1)
    precision = np.maximum.accumulate(precision[::-1])[::-1]  # best precision at this recall or beyond
    idx = np.searchsorted(recall, RECALL_POINTS, side="left")
    sampled = np.where(idx < len(precision), precision[np.minimum(idx, len(precision) - 1)], 0.0)
    return float(sampled.mean())


def mean_average_precision(detections, ground_truths, iou_thresholds=(0.5,), max_dets=100):
    """detections: per image {boxes [N, 4], scores [N], labels [N]}; ground_truths: per image {boxes, labels}
    (tensors or arrays). Returns the mean over iou_thresholds of the mean AP over classes with ground truth."""
    if len(detections) != len(ground_truths):
        raise ValueError(f"got detections for {len(detections)} images but ground truth for {len(ground_truths)}")
    dets, gts = [], [_as_numpy(g) for g in ground_truths]
    for d in detections:
        d = _as_numpy(d)
        order = np.argsort(-d["scores"], kind="stable")[:max_dets]
        dets.append({k: d[k][order] for k in ("boxes", "scores", "labels")})
    labels = sorted(set(np.concatenate([g["labels"] for g in gts]).tolist())) if gts else []
    per_threshold = []
    for thr in iou_thresholds:
        aps = [class_average_precision(dets, gts, c, thr) for c in labels]
        aps = [a for a in aps if a is not None]
        per_threshold.append(float(np.mean(aps)) if aps else 0.0)
    return float(np.mean(per_threshold))


def coco_summary(detections, ground_truths):
    """The two figures the recipe reports: mAP@0.5 and mAP@[0.5:0.95]."""
    return {"map50": mean_average_precision(detections, ground_truths, (0.5,)),
            "map": mean_average_precision(detections, ground_truths, tuple(COCO_THRESHOLDS))}
