"""The segmentation models' shared frame: a backbone returning {"out", "aux"} feature maps, a classifier
(and optional auxiliary classifier) whose logits are upsampled to the input size, and the builders'
weights handling."""

from collections import OrderedDict

from ember import nn
from ember.nn import functional as F


class _SimpleSegmentationModel(nn.Module):
    __constants__ = ["aux_classifier"]

    def __init__(self, backbone, classifier, aux_classifier=None):
        super().__init__()
        self.backbone = backbone
        self.classifier = classifier
        self.aux_classifier = aux_classifier

    def forward(self, x):
        """Returns OrderedDict(out=[N, num_classes, H, W] logits, aux=... when there is an aux classifier)."""
        input_shape = x.shape[-2:]
        features = self.backbone(x)
        result = OrderedDict()
        out = self.classifier(features["out"])
        result["out"] = F.interpolate(out, size=input_shape, mode="bilinear", align_corners=False)
        if self.aux_classifier is not None:
            aux = self.aux_classifier(features["aux"])
            result["aux"] = F.interpolate(aux, size=input_shape, mode="bilinear", align_corners=False)
        return result


def _ovewrite_value_param(param, actual, expected):
    if actual is not None and actual != expected:
        raise ValueError(f"The parameter '{param}' expected value {expected} but got {actual} instead.")
    return expected


def resolve_segmentation_weights(weights, weights_enum, weights_backbone, backbone_enum, num_classes, aux_loss):
    """With checkpoint weights: no backbone weights, num_classes and aux_loss the checkpoint's (21, True);
    otherwise num_classes defaults to 21."""
    weights = weights_enum.verify(weights)
    weights_backbone = backbone_enum.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param("num_classes", num_classes, len(weights.meta["categories"]))
        aux_loss = _ovewrite_value_param("aux_loss", aux_loss, True)
    elif num_classes is None:
        num_classes = 21
    return weights, weights_backbone, num_classes, aux_loss


def load_segmentation_weights(model, weights, progress):
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def mobilenet_stage_indices(features):
    """Indices of the first block, each stride-2 block, and the last block of a MobileNetV3's features."""
    return [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)] + [len(features) - 1]
