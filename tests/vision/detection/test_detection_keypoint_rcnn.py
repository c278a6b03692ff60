"""Keypoint R-CNN: torchvision's parameter count (torchvision 0.18's KeypointRCNN_ResNet50_FPN_Weights num_params,
written out) and keys, heatmap targets against a NumPy reference, heatmap decoding, and train/eval passes."""

import numpy as np
import pytest

import ember
import embervision.models as M
from embervision.models import detection as D
from embervision.models.detection.roi_keypoint import heatmaps_to_keypoints, keypoints_to_heatmap


def test_keypointrcnn_count_and_keys():
    model = D.keypointrcnn_resnet50_fpn(weights_backbone=None)
    frozen = {id(p) for m in model.modules() if isinstance(m, ember.nn.BatchNorm2d) for p in m.parameters()}
    assert sum(p.numel() for p in model.parameters() if id(p) not in frozen) == 59137258
    keys = {k for k in model.state_dict() if k.startswith("roi_heads.keypoint_")}
    expected = {f"roi_heads.keypoint_head.{2 * i}.{p}" for i in range(8) for p in ("weight", "bias")}
    expected |= {f"roi_heads.keypoint_predictor.kps_score_lowres.{p}" for p in ("weight", "bias")}
    assert keys == expected
    assert tuple(model.state_dict()["roi_heads.box_predictor.cls_score.weight"].shape) == (2, 1024)
    assert model.transform.min_size == (640, 672, 704, 736, 768, 800)
    assert "keypointrcnn_resnet50_fpn" in M.list_models(D)
    assert len(D.KeypointRCNN_ResNet50_FPN_Weights.COCO_V1.meta["keypoint_names"]) == 17


def test_keypoints_to_heatmap_against_numpy():
    rois = ember.tensor([[10.0, 20.0, 26.0, 36.0], [0.0, 0.0, 8.0, 4.0]])
    kps = ember.tensor([[[10.0, 20.0, 1.0], [26.0, 36.0, 2.0], [17.9, 30.1, 1.0], [30.0, 25.0, 1.0]],
                        [[4.0, 2.0, 0.0], [7.99, 3.99, 1.0], [-1.0, 1.0, 1.0], [8.0, 1.0, 1.0]]])
    heat, valid = keypoints_to_heatmap(kps, rois, 8)
    exp_heat, exp_valid = np.zeros((2, 4), dtype=np.int64), np.zeros((2, 4), dtype=np.int64)
    for n, (x0, y0, x1, y1) in enumerate(rois.numpy()):
        for k, (x, y, v) in enumerate(kps[n].numpy()):
            cx = 7 if x == x1 else int(np.floor((x - x0) * 8 / (x1 - x0)))
            cy = 7 if y == y1 else int(np.floor((y - y0) * 8 / (y1 - y0)))
            ok = 0 <= cx < 8 and 0 <= cy < 8 and v > 0
            exp_valid[n, k] = int(ok)
            exp_heat[n, k] = (cy * 8 + cx) if ok else 0
    np.testing.assert_array_equal(valid.numpy(), exp_valid)
    np.testing.assert_array_equal(heat.numpy(), exp_heat)
    assert exp_valid.tolist() == [[1, 1, 1, 0], [0, 1, 0, 1]]  # outside the box, invisible: not targets


def test_heatmaps_to_keypoints_finds_each_peak():
    maps = ember.zeros((1, 2, 4, 4))
    maps[0, 0, 1, 2] = 5.0
    maps[0, 1, 3, 0] = 7.0
    rois = ember.tensor([[100.0, 50.0, 104.0, 54.0]])  # 4x4 box: the heatmap keeps its size
    xy, scores = heatmaps_to_keypoints(maps, rois)
    np.testing.assert_allclose(xy[0].numpy(), [[102.5, 51.5, 1.0], [100.5, 53.5, 1.0]])
    np.testing.assert_allclose(scores[0].numpy(), [5.0, 7.0], rtol=1e-6)


def test_keypointrcnn_train_and_eval():
    ember.manual_seed(0)
    model = D.keypointrcnn_resnet50_fpn(weights_backbone=None, num_keypoints=3, min_size=64, max_size=96,
                                        rpn_pre_nms_top_n_train=100, rpn_post_nms_top_n_train=50,
                                        box_batch_size_per_image=16, box_score_thresh=0.0, box_detections_per_img=4)
    images = [ember.rand(3, 60, 80)]
    targets = [{"boxes": ember.tensor([[20.0, 10.0, 50.0, 40.0]]), "labels": ember.tensor([1]),
                "keypoints": ember.tensor([[[25.0, 15.0, 1.0], [40.0, 30.0, 1.0], [0.0, 0.0, 0.0]]])}]
    model.train()
    losses = model(images, targets)
    assert set(losses) == {"loss_classifier", "loss_box_reg", "loss_keypoint", "loss_objectness", "loss_rpn_box_reg"}
    sum(losses.values()).backward()
    with pytest.raises(ValueError, match="Every element of targets should have a keypoints key"):
        model(images, [{"boxes": targets[0]["boxes"], "labels": targets[0]["labels"]}])
    model.eval()
    with ember.no_grad():
        out = model(images)[0]
    assert tuple(out["keypoints"].shape) == (4, 3, 3) and tuple(out["keypoints_scores"].shape) == (4, 3)
    assert float(out["keypoints"][..., 0].max()) <= 80 + 1e-3  # in the input image's coordinates
