"""Detection builders: torchvision's parameter counts (the num_params of torchvision 0.18's COCO weights,
counted with FrozenBatchNorm2d in the backbone, written out here), torchvision's state_dict key layout,
forward passes in train mode (the losses) and eval mode (List[Dict[str, Tensor]]), the registry and the
input checks."""

import pytest

import ember
import embervision.models as M
from embervision.models import detection as D
from embervision.ops import FrozenBatchNorm2d

# torchvision 0.18, models/detection/*.py, each COCO_V1 weights' meta["num_params"].
TORCHVISION_NUM_PARAMS = {
    "fasterrcnn_resnet50_fpn": 41755286,
    "fasterrcnn_mobilenet_v3_large_fpn": 19386354,
    "fasterrcnn_mobilenet_v3_large_320_fpn": 19386354,
    "retinanet_resnet50_fpn": 34014999,
}


def checkpoint_param_count(model):
    """Parameters of the model as torchvision's checkpoints hold them: the backbone's norm layers are
    FrozenBatchNorm2d there (buffers), trainable BatchNorm2d here when built without weights."""
    frozen = {id(p) for m in model.modules() if isinstance(m, ember.nn.BatchNorm2d) for p in m.parameters()}
    return sum(p.numel() for p in model.parameters() if id(p) not in frozen)


def checkpoint_keys(model):
    return {k for k in model.state_dict() if not k.endswith("num_batches_tracked")}


def resnet50_body_keys():
    return {f"backbone.body.{k}" for k in M.resnet50().state_dict()
            if not k.startswith("fc.") and not k.endswith("num_batches_tracked")}


FPN_KEYS = {f"backbone.fpn.{kind}_blocks.{i}.0.{p}" for kind in ("inner", "layer") for i in range(4)
            for p in ("weight", "bias")}
RPN_KEYS = {f"rpn.head.{m}.{p}" for m in ("conv.0.0", "cls_logits", "bbox_pred") for p in ("weight", "bias")}
BOX_KEYS = {f"roi_heads.{m}.{p}" for m in ("box_head.fc6", "box_head.fc7", "box_predictor.cls_score",
                                           "box_predictor.bbox_pred") for p in ("weight", "bias")}


@pytest.mark.parametrize("name", ["fasterrcnn_resnet50_fpn", "fasterrcnn_mobilenet_v3_large_fpn",
                                  "fasterrcnn_mobilenet_v3_large_320_fpn"])
def test_faster_rcnn_parameter_count(name):
    model = M.get_model(name, weights_backbone=None)
    assert checkpoint_param_count(model) == TORCHVISION_NUM_PARAMS[name]


def test_fasterrcnn_resnet50_fpn_frozen_backbone_count_and_keys():
    # The builder's path with pretrained backbone weights (FrozenBatchNorm2d), without downloading them.
    from embervision.models.detection.backbone_utils import _resnet_fpn_extractor
    backbone = _resnet_fpn_extractor(M.resnet50(norm_layer=FrozenBatchNorm2d), 3)
    model = D.FasterRCNN(backbone, num_classes=91)
    assert sum(p.numel() for p in model.parameters()) == 41755286
    assert set(model.state_dict()) == resnet50_body_keys() | FPN_KEYS | RPN_KEYS | BOX_KEYS
    # trainable_backbone_layers=3: conv1, bn1 and layer1 frozen.
    frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
    assert frozen == {n for n, _ in model.named_parameters() if n.startswith(("backbone.body.conv1",
                                                                               "backbone.body.layer1"))}
    sd = model.state_dict()
    assert tuple(sd["rpn.head.cls_logits.weight"].shape) == (3, 256, 1, 1)
    assert tuple(sd["roi_heads.box_head.fc6.weight"].shape) == (1024, 256 * 7 * 7)
    assert tuple(sd["roi_heads.box_predictor.bbox_pred.weight"].shape) == (364, 1024)


def test_mobilenet_fpn_keys():
    model = D.fasterrcnn_mobilenet_v3_large_fpn(weights_backbone=None)
    body = {f"backbone.body.{k}" for k in M.mobilenet_v3_large(norm_layer=ember.nn.BatchNorm2d).state_dict()
            if k.startswith("features.") and not k.endswith("num_batches_tracked")}
    body = {k.replace("backbone.body.features.", "backbone.body.") for k in body}
    fpn = {f"backbone.fpn.{kind}_blocks.{i}.0.{p}" for kind in ("inner", "layer") for i in range(2)
           for p in ("weight", "bias")}
    assert checkpoint_keys(model) == body | fpn | RPN_KEYS | BOX_KEYS
    # 5 sizes x 3 aspect ratios per location; returned layers are features 13 (160 ch) and 16 (960 ch).
    sd = model.state_dict()
    assert tuple(sd["rpn.head.cls_logits.weight"].shape) == (15, 256, 1, 1)
    assert tuple(sd["backbone.fpn.inner_blocks.0.0.weight"].shape) == (256, 160, 1, 1)
    assert tuple(sd["backbone.fpn.inner_blocks.1.0.weight"].shape) == (256, 960, 1, 1)
    small = D.fasterrcnn_mobilenet_v3_large_320_fpn(weights_backbone=None)
    assert (small.transform.min_size, small.transform.max_size) == ((320,), 640)
    assert small.rpn._pre_nms_top_n == {"training": 2000, "testing": 150}
    assert small.rpn.score_thresh == 0.05


def small_batch():
    images = [ember.rand(3, 96, 128), ember.rand(3, 80, 72)]
    targets = [{"boxes": ember.tensor([[10.0, 20.0, 60.0, 80.0]]), "labels": ember.tensor([1])},
               {"boxes": ember.tensor([[5.0, 5.0, 40.0, 50.0], [30.0, 30.0, 70.0, 78.0]]),
                "labels": ember.tensor([2, 3])}]
    return images, targets


def check_train_and_eval(model, loss_names):
    ember.manual_seed(0)
    images, targets = small_batch()
    model.train()
    losses = model(images, targets)
    assert set(losses) == loss_names
    total = sum(losses.values())
    assert bool(ember.isfinite(total))
    total.backward()
    assert any(p.grad is not None and float(p.grad.abs().sum()) > 0 for p in model.parameters())
    model.eval()
    with ember.no_grad():
        out = model(images)
    assert isinstance(out, list) and len(out) == 2
    for det, img in zip(out, images):
        assert set(det) == {"boxes", "labels", "scores"}
        n = det["boxes"].shape[0]
        assert tuple(det["boxes"].shape) == (n, 4) and det["labels"].dtype == ember.int64
        assert tuple(det["scores"].shape) == (n,)
        if n:  # detections are in the input image's coordinates
            assert float(det["boxes"][:, 2].max()) <= img.shape[2] + 1e-3
            assert float(det["boxes"][:, 3].max()) <= img.shape[1] + 1e-3
            assert bool((det["scores"][:-1] >= det["scores"][1:]).all())  # nms keeps them by decreasing score


FRCNN_LOSSES = {"loss_classifier", "loss_box_reg", "loss_objectness", "loss_rpn_box_reg"}


def test_faster_rcnn_mobilenet_train_and_eval():
    check_train_and_eval(D.fasterrcnn_mobilenet_v3_large_320_fpn(weights_backbone=None, num_classes=4), FRCNN_LOSSES)


def test_faster_rcnn_resnet50_train_and_eval():
    model = D.fasterrcnn_resnet50_fpn(weights_backbone=None, num_classes=4, min_size=96, max_size=128,
                                      rpn_pre_nms_top_n_train=200, rpn_post_nms_top_n_train=100,
                                      box_batch_size_per_image=64)
    check_train_and_eval(model, FRCNN_LOSSES)


def test_empty_targets_train():
    model = D.fasterrcnn_mobilenet_v3_large_320_fpn(weights_backbone=None, num_classes=3)
    model.train()
    losses = model([ember.rand(3, 64, 64)], [{"boxes": ember.zeros((0, 4)), "labels": ember.zeros((0,),
                                                                                                  dtype=ember.int64)}])
    # No foreground: the box regression losses are exactly zero, the classification ones are not.
    assert float(losses["loss_box_reg"]) == 0.0 and float(losses["loss_rpn_box_reg"]) == 0.0
    assert float(losses["loss_classifier"]) > 0


def test_registry_and_weights():
    names = M.list_models(D)
    assert {"fasterrcnn_resnet50_fpn", "fasterrcnn_mobilenet_v3_large_fpn",
            "fasterrcnn_mobilenet_v3_large_320_fpn", "retinanet_resnet50_fpn"} <= set(names)
    assert M.get_model_weights("fasterrcnn_resnet50_fpn") is D.FasterRCNN_ResNet50_FPN_Weights
    w = M.get_weight("FasterRCNN_ResNet50_FPN_Weights.COCO_V1")
    assert w.meta["num_params"] == 41755286 and len(w.meta["categories"]) == 91
    assert w.url == "https://download.pytorch.org/models/fasterrcnn_resnet50_fpn_coco-258fb6c6.pth"
    with pytest.raises(ValueError, match="The parameter 'num_classes' expected value 91 but got 3 instead"):
        D.fasterrcnn_resnet50_fpn(weights="COCO_V1", num_classes=3)


def test_bad_inputs_raise():
    model = D.fasterrcnn_mobilenet_v3_large_320_fpn(weights_backbone=None, num_classes=3)
    model.train()
    with pytest.raises(AssertionError, match="targets should not be none when in training mode"):
        model([ember.rand(3, 32, 32)])
    with pytest.raises(AssertionError, match=r"Expected target boxes to be a tensor of shape \[N, 4\]"):
        model([ember.rand(3, 32, 32)], [{"boxes": ember.zeros((2, 5)), "labels": ember.tensor([1, 1])}])
    with pytest.raises(AssertionError, match="All bounding boxes should have positive height and width"):
        model([ember.rand(3, 32, 32)], [{"boxes": ember.tensor([[5.0, 5.0, 5.0, 9.0]]), "labels": ember.tensor([1])}])
    with pytest.raises(ValueError, match="num_classes should not be None when box_predictor is not specified"):
        D.FasterRCNN(model.backbone)
    with pytest.raises(ValueError, match="backbone should contain an attribute out_channels"):
        D.FasterRCNN(ember.nn.ReLU(), num_classes=2)
    with pytest.raises(ValueError, match=r"Trainable backbone layers should be in the range \[0,5\], got 7"):
        from embervision.models.detection.backbone_utils import _validate_trainable_layers
        _validate_trainable_layers(True, 7, 5, 3)


def test_rpn_head_loads_version_1_keys():
    head = D.RPNHead(8, 3)
    old = {k.replace("conv.0.0.", "conv."): v for k, v in head.state_dict().items()}
    fresh = D.RPNHead(8, 3)
    fresh._load_from_state_dict(dict(old), "", {"version": 1}, True, [], [], [])
    missing = fresh.load_state_dict({k.replace("conv.", "conv.0.0.") if k.startswith("conv.") else k: v
                                     for k, v in old.items()})
    assert not missing.missing_keys


def test_retinanet_count_keys_train_and_eval():
    model = D.retinanet_resnet50_fpn(weights_backbone=None)
    assert checkpoint_param_count(model) == TORCHVISION_NUM_PARAMS["retinanet_resnet50_fpn"]
    fpn = {f"backbone.fpn.{kind}_blocks.{i}.0.{p}" for kind in ("inner", "layer") for i in range(3)
           for p in ("weight", "bias")} | {f"backbone.fpn.extra_blocks.{m}.{p}" for m in ("p6", "p7")
                                           for p in ("weight", "bias")}
    heads = {f"head.{h}.conv.{i}.0.{p}" for h in ("classification_head", "regression_head") for i in range(4)
             for p in ("weight", "bias")}
    heads |= {f"head.{m}.{p}" for m in ("classification_head.cls_logits", "regression_head.bbox_reg")
              for p in ("weight", "bias")}
    assert checkpoint_keys(model) == resnet50_body_keys() | fpn | heads
    sd = model.state_dict()
    assert tuple(sd["head.classification_head.cls_logits.weight"].shape) == (9 * 91, 256, 3, 3)
    small = D.retinanet_resnet50_fpn(weights_backbone=None, num_classes=4, min_size=96, max_size=128,
                                     score_thresh=0.0, detections_per_img=50)
    check_train_and_eval(small, {"classification", "bbox_regression"})


def test_retinanet_heads_load_version_1_keys():
    head = D.RetinaNetHead(8, 9, 3)
    v2 = head.state_dict()
    v1 = {k.replace(f"conv.{i}.0.", f"conv.{2 * i}."): v for k, v in v2.items() for i in range(4)
          if f"conv.{i}.0." in k}
    v1.update({k: v for k, v in v2.items() if ".conv." not in k})
    fresh = D.RetinaNetHead(8, 9, 3)
    for sub in ("classification_head", "regression_head"):
        part = {k[len(sub) + 1:]: v for k, v in v1.items() if k.startswith(sub + ".")}
        getattr(fresh, sub)._load_from_state_dict(part, "", {"version": 1}, True, [], [], [])
        assert "conv.6.weight" not in part and "conv.3.0.weight" in part


def test_retinanet_focal_loss_matches_reference_on_one_anchor_grid():
    # One image, one box exactly on an anchor: the classification loss is the focal loss of the anchors
    # (positive only on the matched class) over the number of foreground anchors.
    import numpy as np
    from embervision.models.detection.retinanet import RetinaNetClassificationHead
    head = RetinaNetClassificationHead(4, 1, 2)
    logits = ember.tensor([[[0.3, -1.0], [2.0, 0.5], [-0.2, 0.1]]])
    matched = [ember.tensor([0, -1, -2])]  # anchor 0 on box 0 (label 1), anchor 1 background, anchor 2 ignored
    loss = head.compute_loss([{"labels": ember.tensor([1])}], {"cls_logits": logits}, matched)

    def focal(x, t, alpha=0.25, gamma=2.0):
        p = 1 / (1 + np.exp(-x))
        ce = -(t * np.log(p) + (1 - t) * np.log(1 - p))
        p_t = p * t + (1 - p) * (1 - t)
        return (np.where(t == 1, alpha, 1 - alpha) * ce * (1 - p_t) ** gamma).sum()

    x = np.array([[0.3, -1.0], [2.0, 0.5]])
    t = np.array([[0.0, 1.0], [0.0, 0.0]])
    np.testing.assert_allclose(float(loss), focal(x, t), rtol=1e-5)
