"""Every classification builder that embervision.models.list_models() returns, each built once: a forward pass in
train mode, then in eval mode the eager output, the ember.fx.symbolic_trace output and the ember.jit.script output,
which must agree (issue 24: "every model ... scripts", "fx tracing works for the classification models").
googlenet/inception_v3 return their outputs tuple when scripted, as torchvision's do. Detection, segmentation and
video builders are scripted in test_vision_script_detection.py, test_vision_script_segmentation.py and
test_vision_script_video.py, each of which checks that it covers its module's list_models().

The largest builders (up to regnet_y_128gf's 645M parameters) are built on the meta device and given random
weights that are views of one shared random pool, so no model holds more than its largest parameter's worth of
weight memory; one model is alive at a time (gc between tests)."""
import gc

import numpy as np
import pytest

import ember
import embervision.models as M
from ember import fx

CLASSIFICATION = sorted(set(M.list_models()) - set(M.list_models(M.detection)) - set(M.list_models(M.segmentation))
                        - set(M.list_models(M.video)))
# Built on the meta device and given shared random weights: their default init is slow here (trunc_normal_ over
# 10^8 values), their weights big, or their head zero-initialized (ViT's: every eager output would be 0).
RANDOM_WEIGHTS = {"vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14", "convnext_small", "convnext_base",
                  "convnext_large", "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf", "regnet_x_32gf",
                  "inception_v3", "googlenet", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn", "wide_resnet101_2",
                  "resnext101_32x8d", "resnext101_64x4d", "efficientnet_b7"}
# More than ~10 s each here (build, two eager passes, trace and script; densenets and efficientnets are
# long graphs to compile, the others large).
SLOW = {"densenet161", "densenet169", "densenet201", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7",
        "regnet_y_128gf", "vit_h_14", "convnext_large", "resnet152"}


def shared_random_weights(model):
    """Every parameter a view of one pool of N(0, 0.02^2) values (as long as the largest parameter); batch-norm
    statistics the identity. Eval-mode outputs need real values, not distinct ones."""
    params = [(m, name, p) for m in model.modules() for name, p in m._parameters.items() if p is not None]
    pool = ember.randn(max(p.numel() for _, _, p in params)) * 0.02
    for module, name, p in params:
        module._parameters[name] = ember.nn.Parameter(pool[:p.numel()].view(tuple(p.shape)))
    for module in model.modules():
        for name, b in list(module._buffers.items()):
            if b is not None:
                module._buffers[name] = (ember.ones(tuple(b.shape)) if name == "running_var"
                                         else ember.zeros(tuple(b.shape), dtype=b.dtype))
    return model


def build(name, num_classes=7):
    """The model and a batch of two inputs of the smallest convenient size for it."""
    ember.manual_seed(0)
    kwargs, size = {"num_classes": num_classes}, 64
    if name.startswith("vit"):
        size = 28 if name == "vit_h_14" else 32
        kwargs["image_size"] = size
    elif name in ("googlenet", "inception_v3"):
        kwargs["aux_logits"] = False
        size = 75 if name == "inception_v3" else 64
    elif name in RANDOM_WEIGHTS:
        size = 32
    if name in RANDOM_WEIGHTS:
        with ember.device("meta"):
            model = M.get_model(name, **kwargs)
        model = shared_random_weights(model)
    else:
        model = M.get_model(name, **kwargs)
    return model, ember.randn(2, 3, size, size)


def logits(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.fixture(autouse=True)
def one_model_at_a_time():
    yield
    gc.collect()
    ember._C._cpu_empty_cache()  # the allocator's cached blocks of the model just freed go back to the system


def test_the_sweep_covers_the_classification_zoo():
    # torchvision's classification builders of issue 24 (the names test_vision_model_zoo.py checks the
    # registry against): every one is swept here.
    assert len(CLASSIFICATION) == 70
    assert {"alexnet", "resnet50", "mobilenet_v3_large", "vit_h_14", "regnet_y_128gf", "efficientnet_b7",
            "googlenet", "inception_v3", "convnext_large", "shufflenet_v2_x2_0", "mnasnet1_3"} <= set(CLASSIFICATION)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in CLASSIFICATION])
def test_builder_runs_traces_and_scripts(name):
    model, x = build(name)
    out = logits(model.train()(x))
    assert tuple(out.shape) == (2, 7)

    model.eval()
    traced = fx.symbolic_trace(model)
    assert isinstance(traced, fx.GraphModule) and any(n.op == "call_module" for n in traced.graph.nodes)
    scripted = ember.jit.script(model)
    with ember.no_grad():
        want = model(x)
        got_traced = traced(x)
        got_scripted = scripted(x)
    assert tuple(want.shape) == (2, 7) and np.isfinite(want.numpy()).all()
    assert float(want.std()) > 0  # something to compare
    np.testing.assert_allclose(got_traced.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    assert tuple(logits(got_scripted).shape) == (2, 7)
    np.testing.assert_allclose(logits(got_scripted).numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


def test_scripted_googlenet_returns_its_outputs_tuple():
    model, x = build("googlenet")
    with ember.no_grad():
        out = ember.jit.script(model.eval())(x)
    assert type(out).__name__ == "GoogLeNetOutputs" and out.aux_logits1 is None and out.aux_logits2 is None


def test_scripted_model_follows_weight_changes():
    model, x = build("resnet18")
    scripted = ember.jit.script(model.eval())
    with ember.no_grad():
        model.fc.bias.add_(1.0)
        ember.testing.assert_close(scripted(x), model(x))


def test_scripted_model_saves_and_loads(tmp_path):
    model, x = build("mobilenet_v3_small")
    scripted = ember.jit.script(model.eval())
    path = tmp_path / "mnv3.pt"
    ember.jit.save(scripted, str(path))
    loaded = ember.jit.load(str(path))
    with ember.no_grad():
        ember.testing.assert_close(loaded(x), model(x), rtol=1e-5, atol=1e-5)
