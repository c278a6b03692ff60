"""Issue 24's acceptance "fx tracing works for the classification models": ember.fx.symbolic_trace of every
classification builder gives a GraphModule whose output equals the model's own (eval mode, same weights)."""

import numpy as np
import pytest

import ember
import embervision.models as M
from ember import fx

CLASSIFICATION = sorted(set(M.list_models()) - set(M.list_models(M.detection)) - set(M.list_models(M.segmentation))
                        - set(M.list_models(M.video)))
# Builders whose default init is slow here: built on the meta device, then given small random weights.
HEAVY = {"convnext_small", "convnext_base", "convnext_large", "vit_l_16", "vit_l_32", "vit_h_14", "regnet_y_128gf",
         "regnet_y_32gf", "regnet_x_32gf", "inception_v3", "googlenet"}


def small_random_weights(model):
    for module in model.modules():
        for name, p in list(module._parameters.items()):
            if p is not None:
                module._parameters[name] = ember.nn.Parameter(ember.randn(tuple(p.shape)) * 0.02)
        for name, b in list(module._buffers.items()):
            if b is not None:
                module._buffers[name] = (ember.ones(tuple(b.shape)) if name == "running_var"
                                         else ember.zeros(tuple(b.shape), dtype=b.dtype))
    return model


def build(name):
    kwargs, size = {"num_classes": 7}, 64
    if name.startswith("vit"):
        size = 28 if name == "vit_h_14" else 32
        kwargs["image_size"] = size
    elif name == "inception_v3":
        kwargs["aux_logits"], size = False, 75
    if name in HEAVY:
        with ember.device("meta"):
            model = M.get_model(name, **kwargs)
        return small_random_weights(model), size
    return M.get_model(name, **kwargs), size


def test_the_list_covers_the_classification_zoo():
    assert len(CLASSIFICATION) == 70 and {"resnet50", "mobilenet_v3_large", "vit_b_16", "googlenet"} <= set(
        CLASSIFICATION)


@pytest.mark.parametrize("name", CLASSIFICATION)
def test_symbolic_trace_matches_the_model(name):
    ember.manual_seed(0)
    model, size = build(name)
    model.eval()
    traced = fx.symbolic_trace(model)
    assert isinstance(traced, fx.GraphModule)
    assert any(n.op == "call_module" for n in traced.graph.nodes)
    x = ember.randn(2, 3, size, size)
    with ember.no_grad():
        expected, got = model(x), traced(x)
    assert tuple(got.shape) == (2, 7)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
