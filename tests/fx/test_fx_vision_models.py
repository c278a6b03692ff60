"""ember.fx on embervision's classification models (issue 21's acceptance: the domain packages' models
trace, and the GraphModule computes what the model computes), and ember._assert recorded rather
than traced through."""
import pytest

import ember
import embervision.models as M
from ember.fx import symbolic_trace

# one builder per family; input sizes kept small where the architecture allows
MODELS = [("resnet18", 64), ("resnext50_32x4d", 64), ("wide_resnet50_2", 64), ("mobilenet_v2", 64),
          ("mobilenet_v3_small", 64), ("squeezenet1_1", 64), ("shufflenet_v2_x0_5", 64), ("efficientnet_b0", 64),
          ("regnet_y_400mf", 64), ("densenet121", 64), ("googlenet", 64), ("inception_v3", 299), ("mnasnet0_5", 64),
          ("convnext_tiny", 64), ("vit_b_16", 224), ("alexnet", 224), ("vgg11_bn", 64)]


@pytest.mark.parametrize("name,size", MODELS)
def test_classification_model_traces_and_matches(name, size):
    ember.manual_seed(0)
    kwargs = {"aux_logits": False, "init_weights": False} if name in ("googlenet", "inception_v3") else {}
    model = getattr(M, name)(**kwargs).eval()
    traced = symbolic_trace(model)
    x = ember.randn(2, 3, size, size)
    with ember.no_grad():
        assert ember.equal(traced(x), model(x))
    assert any(n.op == "call_module" for n in traced.graph.nodes)


def test_vit_size_check_is_recorded_and_still_checks():
    model = M.vit_b_16().eval()
    traced = symbolic_trace(model)
    assert any(n.op == "call_function" and n.target is ember._assert for n in traced.graph.nodes)
    # the message was formatted while tracing (it names the traced value), as with torch.fx
    with pytest.raises(AssertionError, match="Wrong image height! Expected 224"):
        traced(ember.randn(1, 3, 32, 224))
