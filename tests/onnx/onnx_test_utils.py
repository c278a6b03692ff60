"""Shared by the ONNX export tests: export a model to bytes, check it with onnx.checker and open it in
onnxruntime, the independent reference that runs the written file. (No __init__.py in this folder: a
package named `onnx` would hide the real one.)"""
import io

import numpy as np
import onnx
import onnxruntime

import ember


class Exported:
    def __init__(self, data):
        self.data = data
        self.proto = onnx.load_from_string(data)
        onnx.checker.check_model(self.proto, full_check=True)
        self.session = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"])
        self.input_names = [i.name for i in self.session.get_inputs()]

    def run(self, *inputs):
        feeds = {n: (x.numpy() if isinstance(x, ember.Tensor) else np.asarray(x))
                 for n, x in zip(self.input_names, inputs)}
        return self.session.run(None, feeds)


def export(model, args, **kwargs):
    """The model written by ember.onnx.export, checked and loaded."""
    buf = io.BytesIO()
    ember.onnx.export(model, args, buf, **kwargs)
    return Exported(buf.getvalue())


def flat(result):
    """A model's result as a flat list of NumPy arrays, in the order the exporter writes outputs."""
    if isinstance(result, ember.Tensor):
        return [result.detach().numpy()]
    if result is None:
        return []
    return [a for r in result for a in flat(r)]


def assert_matches(got, expected, atol=1e-5, rtol=1e-4):
    expected = flat(expected)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, atol=atol, rtol=rtol)
