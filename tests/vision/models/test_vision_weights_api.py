"""The multi-weight API: enums, registry lookups, loading a checkpoint from a local file or the hub cache,
failing clearly offline, and the ImageClassification preset."""

import hashlib
import os

import numpy as np
import pytest

import ember
import embervision.models as M
from embervision.models import Weights, WeightsEnum
from embervision.models._presets import ImageClassification


def test_registry_lookups():
    assert "resnet50" in M.list_models() and "vit_b_16" in M.list_models()
    assert M.list_models(M.mobilenet) == ["mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small"]
    assert isinstance(M.get_model("resnet18", num_classes=3), M.ResNet)
    assert M.get_model_weights("resnet50") is M.ResNet50_Weights
    assert M.get_model_weights(M.vgg16) is M.VGG16_Weights
    assert M.get_weight("ResNet50_Weights.IMAGENET1K_V2") is M.ResNet50_Weights.IMAGENET1K_V2
    with pytest.raises(ValueError, match="Unknown model resnet19"):
        M.get_model("resnet19")
    with pytest.raises(ValueError, match="Invalid weight name provided: 'ResNet50_Weights'"):
        M.get_weight("ResNet50_Weights")
    with pytest.raises(ValueError, match="has no registered weights enum"):
        M.get_model_weights("vit_b_16")


def test_enum_members_carry_url_transforms_and_meta():
    w = M.ResNet50_Weights.DEFAULT
    assert w is M.ResNet50_Weights.IMAGENET1K_V2 and repr(w) == "ResNet50_Weights.IMAGENET1K_V2"
    assert w.url == "https://download.pytorch.org/models/resnet50-11ad3fa6.pth"
    assert w.meta["_metrics"]["ImageNet-1K"]["acc@1"] == 80.858
    assert isinstance(w.transforms(), ImageClassification)
    assert M.ResNet50_Weights.verify("IMAGENET1K_V1") is M.ResNet50_Weights.IMAGENET1K_V1
    assert M.ResNet50_Weights.verify("ResNet50_Weights.DEFAULT") is w
    with pytest.raises(TypeError, match="expected ResNet50_Weights but received ResNet18_Weights"):
        M.resnet50(weights=M.ResNet18_Weights.DEFAULT)
    with pytest.raises(ValueError, match="Failed to find Weights IMAGENET9K"):
        M.resnet50(weights="IMAGENET9K")
    with pytest.raises(ValueError, match="The parameter 'num_classes' expected value 1000 but got 10 instead."):
        M.resnet18(weights="DEFAULT", num_classes=10)
    with pytest.raises(ValueError, match="no published checkpoint"):
        M.vit_b_16(weights="DEFAULT")


@pytest.mark.parametrize("enum_cls", [M.ResNet18_Weights, M.VGG11_BN_Weights, M.MobileNet_V3_Large_Weights,
                                      M.DenseNet121_Weights, M.SqueezeNet1_1_Weights, M.Inception_V3_Weights])
def test_meta_num_params_matches_the_model(enum_cls):
    builder = next(f for f in M._api.BUILTIN_MODELS.values() if M._api._WEIGHTS_OF.get(f) is enum_cls)
    with ember.device("meta"):
        model = builder()
    assert sum(p.numel() for p in model.parameters()) == enum_cls.DEFAULT.meta["num_params"]


def _saved_checkpoint(tmp_path, name):
    source = M.resnet18()
    path = tmp_path / name
    ember.save(source.state_dict(), str(path))
    return source, path


def test_weights_load_from_a_local_file_and_a_file_url(tmp_path):
    source, path = _saved_checkpoint(tmp_path, "mine.pth")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:8]
    named = tmp_path / f"resnet18-{digest}.pth"
    os.rename(path, named)

    class LocalWeights(WeightsEnum):
        FILE = Weights(url=str(named), transforms=None, meta={"num_classes": 1000})
        URL = Weights(url=named.as_uri(), transforms=None, meta={"num_classes": 1000})

    for member in LocalWeights:
        model = M.resnet18()
        model.load_state_dict(member.get_state_dict(progress=False, model_dir=str(tmp_path / "cache")))
        np.testing.assert_array_equal(model.fc.weight.detach().numpy(), source.fc.weight.detach().numpy())


def test_builder_loads_the_hub_cached_checkpoint(tmp_path):
    # A file already in the hub cache under the published name is used without a download.
    old = ember.hub.get_dir()
    ember.hub.set_dir(str(tmp_path))
    try:
        os.makedirs(tmp_path / "checkpoints")
        source, _ = _saved_checkpoint(tmp_path / "checkpoints", "resnet18-f37072fd.pth")
        model = M.resnet18(weights=M.ResNet18_Weights.IMAGENET1K_V1, progress=False)
        np.testing.assert_array_equal(model.conv1.weight.detach().numpy(), source.conv1.weight.detach().numpy())
    finally:
        ember.hub.set_dir(old)


def test_download_checks_the_hash_and_fails_clearly_offline(tmp_path):
    _, path = _saved_checkpoint(tmp_path, "resnet18-00000000.pth")

    class Bad(WeightsEnum):
        WRONG_HASH = Weights(url=path.as_uri(), transforms=None, meta={"num_classes": 1000})
        OFFLINE = Weights(url="http://127.0.0.1:9/resnet18-f37072fd.pth", transforms=None, meta={"num_classes": 1000})

    with pytest.raises(RuntimeError, match="invalid hash value"):
        Bad.WRONG_HASH.get_state_dict(progress=False, model_dir=str(tmp_path / "cache"))
    from urllib.error import URLError
    with pytest.raises(URLError, match="could not download"):
        Bad.OFFLINE.get_state_dict(progress=False, model_dir=str(tmp_path / "cache"))


def test_image_classification_preset():
    preset = M.ResNet18_Weights.DEFAULT.transforms()
    img = ember.full((3, 300, 400), 128, dtype=ember.uint8)
    out = preset(img)
    assert tuple(out.shape) == (3, 224, 224) and out.dtype == ember.float32
    mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
    expected = (128 / 255 - mean) / std
    np.testing.assert_allclose(out.numpy()[:, 100, 100], expected, rtol=1e-5)
    batch = preset(ember.rand(2, 3, 256, 300))
    assert tuple(batch.shape) == (2, 3, 224, 224)
    inception = M.Inception_V3_Weights.DEFAULT.transforms()
    assert tuple(inception(img).shape) == (3, 299, 299)


def test_antialiased_resize_is_a_triangle_filter():
    # Downscaling 4 -> 2 by a triangle of half-width 2 input pixels: output 0 averages inputs 0..2 with
    # weights (0.75, 0.75, 0.25) / 1.75 (centre 1.0; taps at pixel centres 0.5, 1.5, 2.5).
    from embervision.models._presets import resize_antialiased
    x = ember.tensor([[[[0.0, 4.0, 8.0, 16.0]]]])
    out = resize_antialiased(x, (1, 2)).numpy()[0, 0, 0]
    np.testing.assert_allclose(out, [(0.75 * 0 + 0.75 * 4 + 0.25 * 8) / 1.75,
                                     (0.25 * 4 + 0.75 * 8 + 0.75 * 16) / 1.75], rtol=1e-6)
