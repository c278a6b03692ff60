"""ember.onnx.export's errors (PyTorch's types and messages, written out here from torch.onnx 2.13's legacy
exporter) and its arguments: f as a path or a file object, export_params, the model's mode afterwards."""
import io
import sys

import numpy as np
import onnx
import pytest
from onnx_test_utils import Exported, assert_matches, export

import ember
import ember.nn as nn
from ember.onnx.errors import OnnxExporterError, UnsupportedOperatorError


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def test_op_without_mapping_is_named_in_pytorchs_message():
    model = Fn(lambda x: ember.cumsum(x, 0) + 1)
    with pytest.raises(UnsupportedOperatorError,
                       match=r"^Exporting the operator 'aten::cumsum' to ONNX opset version 17 is not supported$"):
        export(model, (ember.randn(3),))
    assert issubclass(UnsupportedOperatorError, OnnxExporterError) and issubclass(OnnxExporterError, RuntimeError)


def test_unsupported_error_messages_match_pytorchs_forms():
    assert str(UnsupportedOperatorError("aten::foo", 18, 20)) == (
        "Exporting the operator 'aten::foo' to ONNX opset version 18 is not supported. Support for this operator "
        "was added in version 20, try exporting with this version")
    assert str(UnsupportedOperatorError("custom::op", 17, None)).startswith(
        "ONNX export failed on an operator with unrecognized namespace custom::op.")


def test_unsupported_option_of_a_mapped_op_is_named():
    model = nn.Sequential(nn.MaxPool2d(2, return_indices=True))
    with pytest.raises(OnnxExporterError, match="max_pool2d.*return_indices"):
        export(model, (ember.randn(1, 1, 4, 4),))


@pytest.mark.parametrize("opset", [16, 9, 22])
def test_unsupported_opset_is_refused(opset):
    with pytest.raises(RuntimeError, match=f"^Unsupported onnx_opset_version: {opset}"):
        export(nn.Linear(2, 2), (ember.randn(1, 2),), opset_version=opset)


def test_bad_arguments():
    lin = nn.Linear(2, 2)
    x = ember.randn(1, 2)
    with pytest.raises(TypeError, match="model must be an ember.nn.Module"):
        ember.onnx.export(lambda t: t, (x,), io.BytesIO())
    with pytest.raises(TypeError, match="args must be a tuple"):
        ember.onnx.export(lin, [x], io.BytesIO())
    with pytest.raises(TypeError, match="example inputs must be tensors"):
        ember.onnx.export(Fn(lambda a, b: a * b), (x, 3), io.BytesIO())
    with pytest.raises(TypeError, match="opset_version must be an int"):
        ember.onnx.export(lin, (x,), io.BytesIO(), opset_version="17")
    with pytest.raises(RuntimeError, match=r"^number of output names provided \(2\) exceeded number of outputs \(1\)$"):
        ember.onnx.export(lin, (x,), io.BytesIO(), output_names=["a", "b"])
    with pytest.raises(RuntimeError, match="^Dynamic shape axis should be no more than the shape dimension for b$"):
        ember.onnx.export(lin, (x,), io.BytesIO(), input_names=["x"], dynamic_axes={"x": {2: "b"}})
    with pytest.raises(TypeError, match="dynamic_axes\\['x'\\] must be a dict or a list"):
        ember.onnx.export(lin, (x,), io.BytesIO(), input_names=["x"], dynamic_axes={"x": 0})
    with pytest.raises(ValueError, match="the name 'x' is given to more than one input or output"):
        ember.onnx.export(lin, (x,), io.BytesIO(), input_names=["x"], output_names=["x"])
    with pytest.raises(OnnxExporterError, match="depends on no input"):
        ember.onnx.export(Fn(lambda t: 3), (x,), io.BytesIO())


def test_unknown_dynamic_axes_name_warns_as_pytorch_does():
    with pytest.warns(UserWarning, match="^Provided key nope for dynamic axes is not a valid input/output name$"):
        ember.onnx.export(nn.Linear(2, 2), (ember.randn(1, 2),), io.BytesIO(), dynamic_axes={"nope": {0: "b"}})


def test_f_as_a_path_and_a_single_tensor_as_args(tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU()).eval()
    x = ember.randn(2, 3)
    path = tmp_path / "model.onnx"
    assert ember.onnx.export(model, x, path) is None
    exported = Exported(path.read_bytes())
    assert_matches(exported.run(x), model(x))
    assert ember.onnx.export(model, x, str(tmp_path / "again.onnx")) is None
    assert onnx.load(str(tmp_path / "again.onnx")).graph.node


def test_requested_output_names_are_not_taken_by_inner_nodes():
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 2), nn.ReLU()).eval()
    x = ember.randn(2, 3)
    exported = export(model, (x,), input_names=["gemm"], output_names=["relu"])
    assert [o.name for o in exported.proto.graph.output] == ["relu"]
    assert_matches(exported.run(x), model(x))


def test_f_none_returns_the_model_proto():
    proto = ember.onnx.export(nn.Linear(2, 3), (ember.randn(1, 2),))
    assert isinstance(proto, onnx.ModelProto)
    onnx.checker.check_model(proto)


def test_export_params_false_makes_parameters_graph_inputs():
    model = nn.Linear(3, 2)
    exported = export(model, (ember.randn(4, 3),), input_names=["x"], export_params=False)
    assert [i.name for i in exported.proto.graph.input] == ["x", "weight", "bias"]
    assert not exported.proto.graph.initializer
    x, w, bias = np.ones((4, 3), np.float32), np.arange(6, dtype=np.float32).reshape(2, 3), np.float32([5, -1])
    got = exported.session.run(None, {"x": x, "weight": w, "bias": bias})[0]
    np.testing.assert_allclose(got, x @ w.T + bias)


def test_model_mode_is_restored_and_export_runs_in_eval_mode():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.9), nn.BatchNorm1d(4))
    model.train()
    model[2].eval()
    x = ember.randn(8, 4)
    exported = export(model, (x,))
    assert model.training and model[1].training and not model[2].training
    model.eval()
    assert_matches(exported.run(x), model(x))


def test_is_in_onnx_export_is_true_only_while_exporting():
    seen = []
    export(Fn(lambda x: seen.append(ember.onnx.is_in_onnx_export()) or x * 2), (ember.randn(2),))
    assert seen == [True] and not ember.onnx.is_in_onnx_export()


def test_missing_onnx_package_is_a_clear_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match="needs the 'onnx' package.*pip install onnx"):
        ember.onnx.export(nn.Linear(2, 2), (ember.randn(1, 2),), io.BytesIO())


def test_in_place_index_assignment_is_named_as_pytorch_names_it():
    def assign(x):
        x[:, 0] = 1.0
        return x
    with pytest.raises(UnsupportedOperatorError, match="'aten::index_put_' to ONNX opset version 17"):
        export(Fn(assign), (ember.randn(2, 3),))


def test_reading_a_traced_value_into_python_warns_that_it_becomes_a_constant():
    from ember.onnx._trace import TracerWarning

    model = Fn(lambda x: x * 2 if x.sum() > 0 else x * 3)
    x = ember.ones(2)
    with pytest.warns(TracerWarning, match="^Converting a tensor to a Python boolean might cause the trace"):
        exported = export(model, (x,))
    np.testing.assert_allclose(exported.run(-x)[0], -2 * np.ones(2))  # the branch taken while tracing


def test_in_place_ops_export_unless_a_view_would_miss_the_change():
    def in_place(x):
        y = x * 1
        y.mul_(2).add_(1)
        y += x
        return F_relu_inplace(y)
    model = Fn(in_place)
    x = ember.randn(3, 4)
    assert_matches(export(model, (x,)).run(x), model(x))

    def base_after_view_changed(x):
        y = x * 1
        y[0].mul_(10)  # eager: changes y's first row
        return y + 1
    with pytest.raises(OnnxExporterError, match="'__add__': its input shares memory with a tensor an in-place op"):
        export(Fn(base_after_view_changed), (x,))

    def view_after_base_changed(x):
        y = x * 1
        row = y[0]
        y.add_(1)
        return row
    with pytest.raises(OnnxExporterError, match="'output': its input shares memory"):
        export(Fn(view_after_base_changed), (x,))


def F_relu_inplace(t):
    return nn.functional.relu(t, inplace=True)


def test_keep_initializers_as_inputs_keeps_the_values_and_lets_them_be_fed():
    model = nn.Linear(3, 2)
    exported = export(model, (ember.randn(4, 3),), input_names=["x"], keep_initializers_as_inputs=True)
    assert [i.name for i in exported.proto.graph.input] == ["x", "weight", "bias"]
    assert {i.name for i in exported.proto.graph.initializer} == {"weight", "bias"}
    x = ember.randn(4, 3)
    assert_matches(exported.run(x), model(x))  # the stored values as defaults
    got = exported.session.run(None, {"x": x.numpy(), "bias": np.float32([1, 2])})[0]
    np.testing.assert_allclose(got, x.numpy() @ model.weight.detach().numpy().T + np.float32([1, 2]), rtol=1e-5)


def test_training_modes():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    x = ember.randn(1, 2)
    export(model, (x,), training=ember.onnx.TrainingMode.EVAL)
    with pytest.raises(OnnxExporterError, match="eval-mode graphs only"):
        export(model, (x,), training=ember.onnx.TrainingMode.TRAINING)
    with pytest.raises(OnnxExporterError, match="eval-mode graphs only"):
        export(model.train(), (x,), training=ember.onnx.TrainingMode.PRESERVE)
    export(model.eval(), (x,), training=ember.onnx.TrainingMode.PRESERVE)


def test_a_model_that_fails_while_traced_is_left_as_it_was():
    class Broken(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(2, 3)

        def forward(self, x):
            out, _ = self.lstm(x)
            return out @ ember.ones(4, 4)  # (.., 3) @ (4, 4): a shape error

    model = Broken().train()
    with pytest.raises(RuntimeError):
        export(model, (ember.randn(5, 1, 2),))
    assert "forward" not in model.lstm.__dict__ and model.training and model.lstm.training
    assert not ember.onnx.is_in_onnx_export()
