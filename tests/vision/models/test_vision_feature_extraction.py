"""embervision.models.feature_extraction on ember.fx: node names as torchvision's documentation lists them
(written out here for ResNet-18), extracted features equal to what forward hooks on the same modules
capture, return_nodes as list or dict, separate train/eval return nodes, leaf modules and other tracer
arguments, and torchvision's errors and warnings."""

import warnings

import numpy as np
import pytest

import ember
import embervision.models as M
from ember import nn
from ember.fx.proxy import TraceError
from embervision.models.feature_extraction import create_feature_extractor, get_graph_node_names
from embervision.models.resnet import BasicBlock


def resnet18_node_names():
    names = ["x", "conv1", "bn1", "relu", "maxpool"]
    for layer in range(1, 5):
        for block in range(2):
            p = f"layer{layer}.{block}."
            if layer > 1 and block == 0:
                names += [p + "downsample.0", p + "downsample.1"]  # ember's block computes the shortcut first
            names += [p + n for n in ("conv1", "bn1", "relu", "conv2", "bn2", "add", "relu_1")]
    return names + ["avgpool", "flatten", "fc"]


def hooked_outputs(model, module_names, x):
    """What forward hooks on the named submodules see during one forward."""
    seen, handles = {}, []
    for name in module_names:
        module = model.get_submodule(name)
        handles.append(module.register_forward_hook(lambda m, i, o, name=name: seen.__setitem__(name, o)))
    with ember.no_grad():
        model(x)
    for h in handles:
        h.remove()
    return seen


def test_resnet18_node_names_are_module_paths_numbered_per_module():
    train_nodes, eval_nodes = get_graph_node_names(M.resnet18())
    assert train_nodes == eval_nodes == resnet18_node_names()


def test_resnet18_features_equal_forward_hooks():
    ember.manual_seed(0)
    model = M.resnet18().eval()
    x = ember.randn(2, 3, 64, 64)
    layers = ["layer1", "layer2", "layer3", "layer4", "avgpool"]
    extractor = create_feature_extractor(model, return_nodes={k: f"feat_{k}" for k in layers})
    assert not extractor.training
    with ember.no_grad():
        features = extractor(x)
    assert list(features) == [f"feat_{k}" for k in layers]
    hooks = hooked_outputs(model, layers, x)
    for k in layers:
        np.testing.assert_array_equal(features[f"feat_{k}"].numpy(), hooks[k].numpy())
    # A list names the outputs by the node names; a function node (flatten) can be returned too.
    with ember.no_grad():
        out = create_feature_extractor(model, return_nodes=["layer2.1.relu_1", "flatten"])(x)
    assert list(out) == ["layer2.1.relu_1", "flatten"]
    np.testing.assert_array_equal(out["layer2.1.relu_1"].numpy(), hooks["layer2"].numpy())
    np.testing.assert_array_equal(out["flatten"].numpy(), hooks["avgpool"].flatten(1).numpy())


def test_extractor_keeps_only_what_the_outputs_need():
    extractor = create_feature_extractor(M.resnet18(), return_nodes=["layer1"])
    assert not hasattr(extractor, "fc") and not hasattr(extractor, "layer2")
    assert [n.op for n in extractor.graph.nodes][-1] == "output"


def test_mobilenet_v3_features_equal_forward_hooks():
    ember.manual_seed(0)
    model = M.mobilenet_v3_large().eval()
    x = ember.randn(1, 3, 64, 64)
    names = ["features.3", "features.6", "features.12", "features.16"]
    extractor = create_feature_extractor(model, return_nodes={n: str(i) for i, n in enumerate(names)})
    with ember.no_grad():
        features = extractor(x)
    hooks = hooked_outputs(model, names, x)
    for i, n in enumerate(names):
        np.testing.assert_array_equal(features[str(i)].numpy(), hooks[n].numpy())
    assert tuple(features["3"].shape) == (1, 960, 2, 2)


def test_vit_features_equal_forward_hooks():
    ember.manual_seed(0)
    model = M.vit_b_16(image_size=32).eval()
    x = ember.randn(1, 3, 32, 32)
    train_nodes, _ = get_graph_node_names(model)
    assert {"conv_proj", "encoder.layers.encoder_layer_5.mlp.4", "encoder.ln", "heads.head"} <= set(train_nodes)
    extractor = create_feature_extractor(model, return_nodes={"encoder.layers.encoder_layer_5": "mid",
                                                              "encoder.ln": "tokens", "heads": "logits"})
    with ember.no_grad():
        features = extractor(x)
    hooks = hooked_outputs(model, ["encoder.layers.encoder_layer_5", "encoder.ln", "heads"], x)
    np.testing.assert_array_equal(features["mid"].numpy(), hooks["encoder.layers.encoder_layer_5"].numpy())
    np.testing.assert_array_equal(features["tokens"].numpy(), hooks["encoder.ln"].numpy())
    np.testing.assert_array_equal(features["logits"].numpy(), hooks["heads"].numpy())


class TrainOnlyBranch(nn.Module):
    """A module whose graph differs between modes: training adds a step the eval graph lacks."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        if self.training:
            y = y * 2
        return ember.relu(y)


def test_train_and_eval_return_nodes():
    ember.manual_seed(0)
    model = TrainOnlyBranch()
    train_nodes, eval_nodes = get_graph_node_names(model, suppress_diff_warning=True)
    assert train_nodes == ["x", "lin", "mul", "relu"] and eval_nodes == ["x", "lin", "relu"]
    with pytest.warns(UserWarning, match="NOTE: The nodes obtained by tracing the model in eval mode are a "
                                         "subsequence of those obtained in train mode."):
        get_graph_node_names(model)
    with pytest.warns(UserWarning, match="subsequence"):
        extractor = create_feature_extractor(model, train_return_nodes={"mul": "out"},
                                             eval_return_nodes={"lin": "out"})
    x = ember.randn(3, 4)
    with ember.no_grad():
        expected = model.lin(x)
        np.testing.assert_allclose(extractor.train()(x)["out"].numpy(), (expected * 2).numpy(), rtol=1e-6)
        np.testing.assert_allclose(extractor.eval()(x)["out"].numpy(), expected.numpy(), rtol=1e-6)
    assert model.training  # the model's own mode is restored


def test_leaf_modules_are_not_traced_through():
    model = M.resnet18().eval()
    nodes, _ = get_graph_node_names(model, tracer_kwargs={"leaf_modules": [BasicBlock]})
    assert nodes == ["x", "conv1", "bn1", "relu", "maxpool"] + [f"layer{i}.{b}" for i in range(1, 5) for b in (0, 1)] \
        + ["avgpool", "flatten", "fc"]
    x = ember.randn(1, 3, 64, 64)
    extractor = create_feature_extractor(model, ["layer3.1"], tracer_kwargs={"leaf_modules": [BasicBlock]})
    with ember.no_grad():
        np.testing.assert_array_equal(extractor(x)["layer3.1"].numpy(), hooked_outputs(model, ["layer3"], x)["layer3"]
                                      .numpy())


def width_dependent_scale(x):
    # Control flow on a size cannot be traced; as an autowrapped function it becomes one call node.
    return x * 2 if x.shape[-1] > 3 else x


class UsesControlFlow(nn.Module):
    def forward(self, x):
        return width_dependent_scale(x) + 1


def test_tracer_kwargs_autowrap_functions():
    model = UsesControlFlow()
    with pytest.raises(TraceError, match="symbolically traced variables cannot be used as inputs to control flow"):
        get_graph_node_names(model)
    nodes, _ = get_graph_node_names(model, tracer_kwargs={"autowrap_functions": (width_dependent_scale,)})
    assert nodes == ["x", "width_dependent_scale", "add"]
    extractor = create_feature_extractor(model, ["width_dependent_scale"],
                                         tracer_kwargs={"autowrap_functions": (width_dependent_scale,)})
    x = ember.ones(2, 5)
    np.testing.assert_array_equal(extractor(x)["width_dependent_scale"].numpy(), np.full((2, 5), 2.0))


def test_argument_errors():
    model = M.resnet18()
    with pytest.raises(ValueError, match=r"Either `return_nodes` or `train_return_nodes` and `eval_return_nodes` "
                                         r"together, should be specified"):
        create_feature_extractor(model)
    with pytest.raises(ValueError, match="If any of `train_return_nodes` and `eval_return_nodes` are specified, then "
                                         "both should be specified"):
        create_feature_extractor(model, train_return_nodes=["layer1"])
    with pytest.raises(ValueError, match="If `train_return_nodes` and `eval_return_nodes` are specified, then both "
                                         "should be specified"):
        create_feature_extractor(model, return_nodes=["layer1"], train_return_nodes=["layer1"],
                                 eval_return_nodes=["layer1"])
    with pytest.raises(ValueError, match=r"node: 'layer9' is not present in model. Hint: use `get_graph_node_names`"):
        create_feature_extractor(model, return_nodes=["layer9"])
    with pytest.raises(ValueError, match="node: 'layer1.0.re' is not present"):
        create_feature_extractor(model, return_nodes=["layer1.0.re"])  # prefixes match whole path atoms only
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # identical train and eval graphs: no warning
        create_feature_extractor(model, return_nodes=["layer1"])
