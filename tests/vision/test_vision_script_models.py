"""ember.jit.script of the classification models: the scripted model's eval-mode output equals the eager
model's on the same input (googlenet/inception_v3 return their outputs tuple when scripted, as
torchvision's do), and a scripted model saves and loads with the same results."""
import pytest

import ember
import embervision.models as M

MODELS = {  # name -> (builder kwargs, input side)
    "alexnet": ({}, 64), "vgg11_bn": ({}, 32), "resnet18": ({}, 64), "resnet50": ({}, 64),
    "resnext50_32x4d": ({}, 64), "wide_resnet50_2": ({}, 32), "mobilenet_v2": ({}, 64),
    "mobilenet_v3_large": ({}, 64), "mobilenet_v3_small": ({}, 64), "densenet121": ({}, 64),
    "squeezenet1_0": ({}, 64), "squeezenet1_1": ({}, 64), "shufflenet_v2_x0_5": ({}, 64), "mnasnet0_5": ({}, 64),
    "efficientnet_b0": ({}, 64), "regnet_y_400mf": ({}, 64),
    "regnet_x_400mf": ({}, 64), "convnext_tiny": ({}, 64), "googlenet": ({"aux_logits": False}, 64),
    "inception_v3": ({"aux_logits": False}, 75), "vit_b_16": ({"image_size": 32}, 32),
}


def build(name):
    ember.manual_seed(0)
    kwargs, size = MODELS[name]
    if not hasattr(M, name):
        pytest.skip(f"embervision.models has no {name}")
    return getattr(M, name)(num_classes=7, **kwargs).eval(), ember.randn(2, 3, size, size)


def logits(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("name", sorted(MODELS))
def test_scripted_model_matches_eager_in_eval_mode(name):
    model, x = build(name)
    scripted = ember.jit.script(model)
    with ember.no_grad():
        want = model(x)
        got = scripted(x)
    assert tuple(logits(got).shape) == (2, 7)
    ember.testing.assert_close(logits(got), want, rtol=1e-5, atol=1e-5)


def test_scripted_googlenet_returns_its_outputs_tuple():
    model, x = build("googlenet")
    with ember.no_grad():
        out = ember.jit.script(model)(x)
    assert type(out).__name__ == "GoogLeNetOutputs" and out.aux_logits1 is None and out.aux_logits2 is None


def test_scripted_model_follows_weight_changes():
    model, x = build("resnet18")
    scripted = ember.jit.script(model)
    with ember.no_grad():
        model.fc.bias.add_(1.0)
        ember.testing.assert_close(scripted(x), model(x))


def test_scripted_model_saves_and_loads(tmp_path):
    model, x = build("mobilenet_v3_small")
    scripted = ember.jit.script(model)
    path = tmp_path / "mnv3.pt"
    ember.jit.save(scripted, str(path))
    loaded = ember.jit.load(str(path))
    with ember.no_grad():
        ember.testing.assert_close(loaded(x), model(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,kwargs", [("fcn_resnet50", {"aux_loss": True}), ("deeplabv3_resnet50", {}),
                                         ("deeplabv3_mobilenet_v3_large", {"aux_loss": True}),
                                         ("lraspp_mobilenet_v3_large", {})])
def test_scripted_segmentation_model_matches_eager(name, kwargs):
    import embervision.models.segmentation as S

    ember.manual_seed(0)
    model = getattr(S, name)(weights_backbone=None, num_classes=5, **kwargs).eval()
    x = ember.randn(1, 3, 48, 40)
    with ember.no_grad():
        want = model(x)
        got = ember.jit.script(model)(x)
    assert list(got) == list(want)
    for key in want:
        assert tuple(got[key].shape) == (1, 5, 48, 40)
        ember.testing.assert_close(got[key], want[key], rtol=1e-5, atol=1e-5)
