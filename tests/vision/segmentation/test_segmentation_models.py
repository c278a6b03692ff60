"""Segmentation builders: torchvision's parameter counts (torchvision 0.18's COCO_WITH_VOC_LABELS_V1
weights' num_params, which include the auxiliary classifier those checkpoints carry; LR-ASPP has none),
key layout, output structure (OrderedDict of [N, classes, H, W] logits at the input size)."""

import pytest

import ember
import embervision.models as M
from embervision.models import segmentation as S

TORCHVISION_NUM_PARAMS = {
    "fcn_resnet50": 35322218, "fcn_resnet101": 54314346, "deeplabv3_resnet50": 42004074,
    "deeplabv3_resnet101": 60996202, "deeplabv3_mobilenet_v3_large": 11029328, "lraspp_mobilenet_v3_large": 3221538,
}


@pytest.mark.parametrize("name", sorted(TORCHVISION_NUM_PARAMS))
def test_parameter_count(name):
    kwargs = {} if name.startswith("lraspp") else {"aux_loss": True}
    model = M.get_model(name, weights_backbone=None, **kwargs)
    assert sum(p.numel() for p in model.parameters()) == TORCHVISION_NUM_PARAMS[name]
    assert M.get_model_weights(name).DEFAULT.meta["num_params"] == TORCHVISION_NUM_PARAMS[name]


def test_registry():
    assert M.list_models(S) == sorted(TORCHVISION_NUM_PARAMS)


def test_key_layout():
    keys = set(S.deeplabv3_resnet50(weights_backbone=None, aux_loss=True).state_dict())
    for k in ("backbone.conv1.weight", "backbone.layer4.2.bn3.running_var", "classifier.0.convs.0.0.weight",
              "classifier.0.convs.3.1.weight", "classifier.0.convs.4.1.weight", "classifier.0.project.0.weight",
              "classifier.1.weight", "classifier.4.bias", "aux_classifier.0.weight", "aux_classifier.4.bias"):
        assert k in keys, k
    assert not any(k.startswith("backbone.fc.") for k in keys)
    keys = set(S.lraspp_mobilenet_v3_large(weights_backbone=None).state_dict())
    assert {"backbone.0.0.weight", "backbone.16.0.weight", "classifier.cbr.0.weight", "classifier.scale.1.weight",
            "classifier.low_classifier.weight", "classifier.high_classifier.bias"} <= keys
    fcn = set(S.fcn_resnet50(weights_backbone=None).state_dict())
    assert "classifier.4.weight" in fcn and not any(k.startswith("aux_classifier") for k in fcn)


@pytest.mark.parametrize("name", ["fcn_resnet50", "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"])
def test_forward_train_and_eval(name):
    aux = not name.startswith("lraspp")
    model = M.get_model(name, weights_backbone=None, num_classes=5, **({"aux_loss": True} if aux else {}))
    x = ember.rand(2, 3, 40, 56)
    model.train()
    out = model(x)
    assert list(out) == (["out", "aux"] if aux else ["out"])
    assert all(tuple(v.shape) == (2, 5, 40, 56) for v in out.values())
    sum(v.mean() for v in out.values()).backward()
    model.eval()
    with ember.no_grad():
        assert tuple(model(x)["out"].shape) == (2, 5, 40, 56)


def test_builder_errors():
    with pytest.raises(NotImplementedError, match="This model does not use auxiliary loss"):
        S.lraspp_mobilenet_v3_large(weights_backbone=None, aux_loss=True)
    with pytest.raises(ValueError, match="The parameter 'num_classes' expected value 21 but got 4 instead"):
        S.fcn_resnet50(weights="COCO_WITH_VOC_LABELS_V1", num_classes=4)
