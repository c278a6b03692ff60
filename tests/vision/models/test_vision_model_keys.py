"""torchvision's complete state_dict key sets, generated here from each family's published layout (block counts,
layer indices, submodule names of torchvision's checkpoints), so a torchvision checkpoint of every one of these
builders loads key for key: VGG, ResNet/ResNeXt/Wide ResNet, DenseNet, ViT, ConvNeXt, ShuffleNetV2, SqueezeNet,
AlexNet, EfficientNet-B0..B7, MNASNet, RegNet X/Y (the RegNet paper's stage depths, the projection in each stage's
first block, squeeze-excitation in the Y models), MobileNetV2 and V3 large/small (their block tables: an expansion
conv only where the expanded width differs from the input's), and the segmentation models on ResNet-101 and
MobileNetV3 (relative to the ResNet-50 ones' heads). test_vision_model_zoo.py checks samples of the other builders'
keys."""
import math

import pytest

import ember
import embervision.models as M

BN = ("weight", "bias", "running_mean", "running_var", "num_batches_tracked")
WB = ("weight", "bias")


def bn(prefix):
    return [f"{prefix}.{k}" for k in BN]


def wb(prefix):
    return [f"{prefix}.{k}" for k in WB]


VGG_CFGS = {"11": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
            "13": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
            "16": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
            "19": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512,
                   "M"]}


def vgg_keys(depth, batch_norm):
    keys, i = [], 0
    for v in VGG_CFGS[depth]:
        if v == "M":
            i += 1
            continue
        keys += wb(f"features.{i}")
        if batch_norm:
            keys += bn(f"features.{i + 1}")
        i += 3 if batch_norm else 2
    return keys + wb("classifier.0") + wb("classifier.3") + wb("classifier.6")


RESNET_LAYERS = {"resnet18": ([2, 2, 2, 2], False), "resnet34": ([3, 4, 6, 3], False),
                 "resnet50": ([3, 4, 6, 3], True), "resnet101": ([3, 4, 23, 3], True),
                 "resnet152": ([3, 8, 36, 3], True), "resnext50_32x4d": ([3, 4, 6, 3], True),
                 "resnext101_32x8d": ([3, 4, 23, 3], True), "resnext101_64x4d": ([3, 4, 23, 3], True),
                 "wide_resnet50_2": ([3, 4, 6, 3], True), "wide_resnet101_2": ([3, 4, 23, 3], True)}


def resnet_keys(layers, bottleneck):
    convs = 3 if bottleneck else 2
    keys = ["conv1.weight"] + bn("bn1") + wb("fc")
    for layer, blocks in enumerate(layers, 1):
        for block in range(blocks):
            p = f"layer{layer}.{block}."
            for i in range(1, convs + 1):
                keys += [p + f"conv{i}.weight"] + bn(p + f"bn{i}")
            if block == 0 and (layer > 1 or bottleneck):  # a stride or a channel change: the shortcut projects
                keys += [p + "downsample.0.weight"] + bn(p + "downsample.1")
    return keys


DENSENET_BLOCKS = {"121": (6, 12, 24, 16), "161": (6, 12, 36, 24), "169": (6, 12, 32, 32), "201": (6, 12, 48, 32)}


def densenet_keys(blocks):
    keys = ["features.conv0.weight"] + bn("features.norm0") + bn("features.norm5") + wb("classifier")
    for b, n in enumerate(blocks, 1):
        for j in range(1, n + 1):
            p = f"features.denseblock{b}.denselayer{j}."
            keys += bn(p + "norm1") + [p + "conv1.weight"] + bn(p + "norm2") + [p + "conv2.weight"]
        if b < len(blocks):
            keys += bn(f"features.transition{b}.norm") + [f"features.transition{b}.conv.weight"]
    return keys


VIT_LAYERS = {"vit_b_16": 12, "vit_b_32": 12, "vit_l_16": 24, "vit_l_32": 24, "vit_h_14": 32}


def vit_keys(layers):
    keys = ["class_token", "encoder.pos_embedding"] + wb("conv_proj") + wb("encoder.ln") + wb("heads.head")
    for i in range(layers):
        p = f"encoder.layers.encoder_layer_{i}."
        keys += wb(p + "ln_1") + wb(p + "ln_2") + wb(p + "mlp.0") + wb(p + "mlp.3") + wb(p + "self_attention.out_proj")
        keys += [p + "self_attention.in_proj_weight", p + "self_attention.in_proj_bias"]
    return keys


CONVNEXT_DEPTHS = {"convnext_tiny": [3, 3, 9, 3], "convnext_small": [3, 3, 27, 3], "convnext_base": [3, 3, 27, 3],
                   "convnext_large": [3, 3, 27, 3]}


def convnext_keys(depths):
    keys = wb("features.0.0") + wb("features.0.1") + wb("classifier.0") + wb("classifier.2")
    for s, n in enumerate(depths):
        for k in range(n):
            p = f"features.{2 * s + 1}.{k}."
            keys += [p + "layer_scale"] + wb(p + "block.0") + wb(p + "block.2") + wb(p + "block.3") + wb(p + "block.5")
        if s < len(depths) - 1:
            keys += wb(f"features.{2 * s + 2}.0") + wb(f"features.{2 * s + 2}.1")
    return keys


def shufflenet_keys():
    keys = ["conv1.0.weight"] + bn("conv1.1") + ["conv5.0.weight"] + bn("conv5.1") + wb("fc")
    for stage, repeats in zip((2, 3, 4), (4, 8, 4)):
        for i in range(repeats):
            p = f"stage{stage}.{i}."
            if i == 0:  # the strided unit's second branch
                keys += [p + "branch1.0.weight"] + bn(p + "branch1.1") + [p + "branch1.2.weight"] + bn(p + "branch1.3")
            for conv, norm in ((0, 1), (3, 4), (5, 6)):
                keys += [p + f"branch2.{conv}.weight"] + bn(p + f"branch2.{norm}")
    return keys


def squeezenet_keys(fires):
    keys = wb("features.0") + wb("classifier.1")
    for i in fires:
        keys += wb(f"features.{i}.squeeze") + wb(f"features.{i}.expand1x1") + wb(f"features.{i}.expand3x3")
    return keys


def alexnet_keys():
    return [k for i in (0, 3, 6, 8, 10) for k in wb(f"features.{i}")] + [
        k for i in (1, 4, 6) for k in wb(f"classifier.{i}")]


EFFICIENTNET_DEPTH = {"b0": 1.0, "b1": 1.1, "b2": 1.2, "b3": 1.4, "b4": 1.8, "b5": 2.2, "b6": 2.6, "b7": 3.1}


def efficientnet_keys(depth_mult):
    keys = ["features.0.0.weight"] + bn("features.0.1") + ["features.8.0.weight"] + bn("features.8.1")
    keys += wb("classifier.1")
    for stage, repeats in enumerate((1, 2, 2, 3, 3, 4, 1)):
        for k in range(int(math.ceil(repeats * depth_mult))):
            p = f"features.{stage + 1}.{k}.block."
            # expand, depthwise, squeeze-excitation, project; the first stage has no expansion conv
            convs, se = (["0", "2"], "1") if stage == 0 else (["0", "1", "3"], "2")
            for c in convs:
                keys += [p + f"{c}.0.weight"] + bn(p + f"{c}.1")
            keys += wb(p + f"{se}.fc1") + wb(p + f"{se}.fc2")
    return keys


def mnasnet_keys():
    keys = []
    for conv, norm in ((0, 1), (3, 4), (6, 7), (14, 15)):
        keys += [f"layers.{conv}.weight"] + bn(f"layers.{norm}")
    for stack, repeats in zip(range(8, 14), (3, 3, 3, 2, 4, 1)):
        for r in range(repeats):
            for conv, norm in ((0, 1), (3, 4), (6, 7)):
                keys += [f"layers.{stack}.{r}.layers.{conv}.weight"] + bn(f"layers.{stack}.{r}.layers.{norm}")
    return keys + wb("classifier.1")


def conv_bn(prefix):  # a Conv2dNormActivation: conv without bias, then batch norm
    return [f"{prefix}.0.weight"] + bn(f"{prefix}.1")


REGNET_DEPTHS = {
    "regnet_y_400mf": [1, 3, 6, 6], "regnet_y_800mf": [1, 3, 8, 2], "regnet_y_1_6gf": [2, 6, 17, 2],
    "regnet_y_3_2gf": [2, 5, 13, 1], "regnet_y_8gf": [2, 4, 10, 1], "regnet_y_16gf": [2, 4, 11, 1],
    "regnet_y_32gf": [2, 5, 12, 1], "regnet_y_128gf": [2, 7, 17, 1],
    "regnet_x_400mf": [1, 2, 7, 12], "regnet_x_800mf": [1, 3, 7, 5], "regnet_x_1_6gf": [2, 4, 10, 2],
    "regnet_x_3_2gf": [2, 6, 15, 2], "regnet_x_8gf": [2, 5, 15, 1], "regnet_x_16gf": [2, 6, 13, 1],
    "regnet_x_32gf": [2, 7, 13, 1],
}


def regnet_keys(depths, se):
    keys = conv_bn("stem") + wb("fc")
    for s, depth in enumerate(depths, 1):
        for i in range(depth):
            p = f"trunk_output.block{s}.block{s}-{i}."
            if i == 0:  # stride 2 and a new width: the shortcut projects
                keys += conv_bn(p + "proj")
            keys += conv_bn(p + "f.a") + conv_bn(p + "f.b") + conv_bn(p + "f.c")
            if se:
                keys += wb(p + "f.se.fc1") + wb(p + "f.se.fc2")
    return keys


# (input, expanded, squeeze-excitation) of each MobileNetV3 block, as torchvision's tables
MOBILENET_V3_BLOCKS = {
    "mobilenet_v3_large": [(16, 16, False), (16, 64, False), (24, 72, False), (24, 72, True), (40, 120, True),
                           (40, 120, True), (40, 240, False), (80, 200, False), (80, 184, False), (80, 184, False),
                           (80, 480, True), (112, 672, True), (112, 672, True), (160, 960, True), (160, 960, True)],
    "mobilenet_v3_small": [(16, 16, True), (16, 72, False), (24, 88, False), (24, 96, True), (40, 240, True),
                           (40, 240, True), (40, 120, True), (48, 144, True), (48, 288, True), (96, 576, True),
                           (96, 576, True)],
}


def mobilenet_v3_keys(blocks):
    keys = conv_bn("features.0") + conv_bn(f"features.{len(blocks) + 1}") + wb("classifier.0")
    keys += wb("classifier.3")
    for b, (cin, expanded, se) in enumerate(blocks, 1):
        p, i = f"features.{b}.block.", 0
        if expanded != cin:
            keys += conv_bn(p + "0")
            i = 1
        keys += conv_bn(p + str(i))  # depthwise
        if se:
            keys += wb(p + f"{i + 1}.fc1") + wb(p + f"{i + 1}.fc2")
        keys += conv_bn(p + str(i + 1 + se))  # projection
    return keys


def mobilenet_v2_keys():
    keys = conv_bn("features.0") + conv_bn("features.18") + wb("classifier.1")
    b = 1
    for t, n in ((1, 1), (6, 2), (6, 3), (6, 4), (6, 3), (6, 3), (6, 1)):
        for _ in range(n):
            p = f"features.{b}.conv."
            if t == 1:  # no expansion: depthwise, then the projection conv and its norm
                keys += conv_bn(p + "0") + [p + "1.weight"] + bn(p + "2")
            else:
                keys += conv_bn(p + "0") + conv_bn(p + "1") + [p + "2.weight"] + bn(p + "3")
            b += 1
    return keys


EXPECTED = {
    **{f"vgg{d}{'_bn' if b else ''}": vgg_keys(d, b) for d in VGG_CFGS for b in (False, True)},
    **{name: resnet_keys(*cfg) for name, cfg in RESNET_LAYERS.items()},
    **{f"densenet{d}": densenet_keys(blocks) for d, blocks in DENSENET_BLOCKS.items()},
    **{name: vit_keys(n) for name, n in VIT_LAYERS.items()},
    **{name: convnext_keys(depths) for name, depths in CONVNEXT_DEPTHS.items()},
    **{f"shufflenet_v2_{w}": shufflenet_keys() for w in ("x0_5", "x1_0", "x1_5", "x2_0")},
    "squeezenet1_0": squeezenet_keys((3, 4, 5, 7, 8, 9, 10, 12)),
    "squeezenet1_1": squeezenet_keys((3, 4, 6, 7, 9, 10, 11, 12)),
    "alexnet": alexnet_keys(),
    **{f"efficientnet_{b}": efficientnet_keys(d) for b, d in EFFICIENTNET_DEPTH.items()},
    **{f"mnasnet{w}": mnasnet_keys() for w in ("0_5", "0_75", "1_0", "1_3")},
    **{name: regnet_keys(d, name.startswith("regnet_y")) for name, d in REGNET_DEPTHS.items()},
    **{name: mobilenet_v3_keys(blocks) for name, blocks in MOBILENET_V3_BLOCKS.items()},
    "mobilenet_v2": mobilenet_v2_keys(),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_state_dict_keys_are_torchvisions(name):
    with ember.device("meta"):
        keys = list(M.get_model(name).state_dict())
    want = EXPECTED[name]
    assert len(want) == len(set(want))
    assert sorted(set(keys) - set(want)) == [] and sorted(set(want) - set(keys)) == []
    assert len(keys) == len(want)


def segmentation_keys(name, **kwargs):
    import embervision.models.segmentation as S
    with ember.device("meta"):
        return set(getattr(S, name)(weights_backbone=None, aux_loss=True, **kwargs).state_dict())


@pytest.mark.parametrize("head", ["fcn", "deeplabv3"])
def test_resnet101_segmentation_keys(head):
    # torchvision's layout: the ResNet-101 trunk without fc under backbone., the heads of the ResNet-50 models.
    keys = segmentation_keys(f"{head}_resnet101")
    backbone = {f"backbone.{k}" for k in resnet_keys([3, 4, 23, 3], True) if not k.startswith("fc.")}
    heads = {k for k in segmentation_keys(f"{head}_resnet50") if not k.startswith("backbone.")}
    assert heads and {k for k in heads if k.startswith("aux_classifier.")}
    assert keys == backbone | heads


def test_deeplabv3_mobilenet_v3_large_keys():
    # The backbone is mobilenet_v3_large's features (their indices directly under backbone.), the head DeepLabV3's.
    with ember.device("meta"):
        features = [k for k in M.mobilenet_v3_large().state_dict() if k.startswith("features.")]
    backbone = {"backbone." + k[len("features."):] for k in features}
    heads = {k for k in segmentation_keys("deeplabv3_resnet50") if not k.startswith("backbone.")}
    assert segmentation_keys("deeplabv3_mobilenet_v3_large") == backbone | heads
