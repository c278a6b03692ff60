"""Every classification builder: torchvision's parameter count (the figures of torchvision's model docs,
written out here) and torchvision's state_dict key names (the full set for ResNet-18, keys of each model's
published checkpoint layout otherwise). Each builder's forward pass in train and eval mode, fx trace and script are
in tests/vision/test_vision_script_models.py (one build per model)."""

import pytest

import ember
import embervision.models as M

# Parameter counts as torchvision's documentation lists them (the weights' num_params).
EXPECTED_PARAMS = {
    "alexnet": 61100840, "vgg11": 132863336, "vgg11_bn": 132868840, "vgg13": 133047848, "vgg13_bn": 133053736,
    "vgg16": 138357544, "vgg16_bn": 138365992, "vgg19": 143667240, "vgg19_bn": 143678248,
    "resnet18": 11689512, "resnet34": 21797672, "resnet50": 25557032, "resnet101": 44549160, "resnet152": 60192808,
    "resnext50_32x4d": 25028904, "resnext101_32x8d": 88791336, "resnext101_64x4d": 83455272,
    "wide_resnet50_2": 68883240, "wide_resnet101_2": 126886696,
    "squeezenet1_0": 1248424, "squeezenet1_1": 1235496,
    "densenet121": 7978856, "densenet161": 28681000, "densenet169": 14149480, "densenet201": 20013928,
    "inception_v3": 27161264, "googlenet": 6624904,
    "shufflenet_v2_x0_5": 1366792, "shufflenet_v2_x1_0": 2278604, "shufflenet_v2_x1_5": 3503624,
    "shufflenet_v2_x2_0": 7393996,
    "mobilenet_v2": 3504872, "mobilenet_v3_large": 5483032, "mobilenet_v3_small": 2542856,
    "mnasnet0_5": 2218512, "mnasnet0_75": 3170208, "mnasnet1_0": 4383312, "mnasnet1_3": 6282256,
    "efficientnet_b0": 5288548, "efficientnet_b1": 7794184, "efficientnet_b2": 9109994, "efficientnet_b3": 12233232,
    "efficientnet_b4": 19341616, "efficientnet_b5": 30389784, "efficientnet_b6": 43040704,
    "efficientnet_b7": 66347960,
    "regnet_y_400mf": 4344144, "regnet_y_800mf": 6432512, "regnet_y_1_6gf": 11202430, "regnet_y_3_2gf": 19436338,
    "regnet_y_8gf": 39381472, "regnet_y_16gf": 83590140, "regnet_y_32gf": 145046770, "regnet_y_128gf": 644812894,
    "regnet_x_400mf": 5495976, "regnet_x_800mf": 7259656, "regnet_x_1_6gf": 9190136, "regnet_x_3_2gf": 15296552,
    "regnet_x_8gf": 39572648, "regnet_x_16gf": 54278536, "regnet_x_32gf": 107811560,
    "convnext_tiny": 28589128, "convnext_small": 50223688, "convnext_base": 88591464, "convnext_large": 197767336,
    "vit_b_16": 86567656, "vit_b_32": 88224232, "vit_l_16": 304326632, "vit_l_32": 306535400,
    "vit_h_14": 632045800,
}

# Keys of torchvision's published checkpoints (a sample per model, covering each kind of submodule).
EXPECTED_KEYS = {
    "alexnet": ["features.0.weight", "features.10.bias", "classifier.1.weight", "classifier.6.bias"],
    "vgg16": ["features.0.weight", "features.28.weight", "classifier.0.weight", "classifier.6.bias"],
    "vgg16_bn": ["features.1.running_var", "features.40.weight", "features.41.num_batches_tracked",
                 "classifier.3.weight"],
    "resnet50": ["layer1.0.downsample.0.weight", "layer1.0.downsample.1.running_mean", "layer4.2.bn3.weight",
                 "layer4.2.conv3.weight", "fc.bias"],
    "squeezenet1_0": ["features.0.weight", "features.3.squeeze.weight", "features.12.expand3x3.bias",
                      "classifier.1.weight"],
    "densenet121": ["features.conv0.weight", "features.denseblock1.denselayer1.norm1.weight",
                    "features.denseblock4.denselayer16.conv2.weight", "features.transition1.conv.weight",
                    "features.norm5.running_var", "classifier.bias"],
    "inception_v3": ["Conv2d_1a_3x3.conv.weight", "Mixed_5b.branch_pool.bn.running_mean",
                     "Mixed_7c.branch3x3dbl_3b.conv.weight", "AuxLogits.conv1.conv.weight", "AuxLogits.fc.weight",
                     "fc.weight"],
    "googlenet": ["conv1.conv.weight", "inception3a.branch2.1.conv.weight", "inception5b.branch4.1.bn.bias",
                  "fc.weight"],
    "shufflenet_v2_x1_0": ["conv1.0.weight", "stage2.0.branch1.0.weight", "stage2.1.branch2.6.running_var",
                           "conv5.1.weight", "fc.weight"],
    "mobilenet_v2": ["features.0.0.weight", "features.1.conv.0.0.weight", "features.1.conv.1.weight",
                     "features.2.conv.3.running_mean", "features.18.0.weight", "classifier.1.weight"],
    "mobilenet_v3_large": ["features.0.0.weight", "features.4.block.2.fc1.weight", "features.16.0.weight",
                           "classifier.0.weight", "classifier.3.weight"],
    "mnasnet1_0": ["layers.0.weight", "layers.8.0.layers.0.weight", "layers.14.weight", "layers.15.running_mean",
                   "classifier.1.weight"],
    "efficientnet_b0": ["features.0.0.weight", "features.1.0.block.0.0.weight", "features.1.0.block.1.fc1.weight",
                        "features.2.0.block.3.1.running_var", "features.8.0.weight", "classifier.1.weight"],
    "regnet_y_400mf": ["stem.0.weight", "trunk_output.block1.block1-0.proj.0.weight",
                       "trunk_output.block1.block1-0.f.se.fc1.weight", "trunk_output.block4.block4-0.f.c.1.running_var",
                       "fc.weight"],
    "convnext_tiny": ["features.0.0.weight", "features.0.1.weight", "features.1.0.layer_scale",
                      "features.1.0.block.0.weight", "features.1.0.block.2.weight", "features.2.0.weight",
                      "features.2.1.weight", "classifier.0.weight", "classifier.2.weight"],
    "vit_b_16": ["class_token", "conv_proj.weight", "encoder.pos_embedding",
                 "encoder.layers.encoder_layer_0.self_attention.in_proj_weight",
                 "encoder.layers.encoder_layer_11.self_attention.out_proj.weight",
                 "encoder.layers.encoder_layer_0.mlp.3.bias", "encoder.ln.weight", "heads.head.weight"],
}

def meta_model(name, **kwargs):
    with ember.device("meta"):
        return M.get_model(name, **kwargs)

def test_every_builder_is_registered():
    # The classification builders (detection, segmentation and video ones have their own tests).
    others = set(M.list_models(M.detection)) | set(M.list_models(M.segmentation)) | set(M.list_models(M.video))
    assert sorted(EXPECTED_PARAMS) == sorted(set(M.list_models()) - others)

@pytest.mark.parametrize("name", sorted(EXPECTED_PARAMS))
def test_parameter_count(name):
    # GoogLeNet's published checkpoint drops the auxiliary classifiers that its default build has.
    model = meta_model(name, **({"aux_logits": False} if name == "googlenet" else {}))
    assert sum(p.numel() for p in model.parameters()) == EXPECTED_PARAMS[name]

def resnet18_keys():
    bn = ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    keys = ["conv1.weight"] + [f"bn1.{k}" for k in bn] + ["fc.weight", "fc.bias"]
    for layer in range(1, 5):
        for block in range(2):
            p = f"layer{layer}.{block}."
            keys += [p + "conv1.weight", p + "conv2.weight"] + [p + f"bn{i}.{k}" for i in (1, 2) for k in bn]
            if layer > 1 and block == 0:
                keys += [p + "downsample.0.weight"] + [p + f"downsample.1.{k}" for k in bn]
    return keys

def test_resnet18_state_dict_keys_exactly():
    keys = list(meta_model("resnet18").state_dict())
    assert sorted(keys) == sorted(resnet18_keys()) and len(keys) == 122

@pytest.mark.parametrize("name", sorted(EXPECTED_KEYS))
def test_state_dict_key_names(name):
    keys = set(meta_model(name).state_dict())
    missing = [k for k in EXPECTED_KEYS[name] if k not in keys]
    assert not missing

def test_auxiliary_outputs_in_training():
    ember.manual_seed(0)
    model = M.googlenet(aux_logits=True, num_classes=5)
    out = model.train()(ember.randn(2, 3, 64, 64))
    assert isinstance(out, M.GoogLeNetOutputs)
    assert [tuple(t.shape) for t in out] == [(2, 5)] * 3
    assert sum(p.numel() for p in M.googlenet(aux_logits=True).parameters()) > EXPECTED_PARAMS["googlenet"]

def test_builder_arguments_are_checked():
    with pytest.raises(AssertionError, match="Wrong image height! Expected 224 but got 32!"):
        M.vit_b_16()(ember.randn(1, 3, 32, 32))
    with pytest.raises(ValueError, match="replace_stride_with_dilation"):
        M.resnet50(replace_stride_with_dilation=[False, True])
    with pytest.raises(ValueError, match="Unsupported SqueezeNet version"):
        M.SqueezeNet(version="2_0")
    dilated = M.resnet50(replace_stride_with_dilation=[False, True, True]).eval()
    with ember.no_grad():
        assert tuple(dilated.layer4(dilated.layer3(dilated.layer2(ember.randn(1, 256, 16, 16)))).shape) == \
            (1, 2048, 8, 8)
