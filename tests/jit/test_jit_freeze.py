"""ember.jit.freeze / optimize_for_inference: outputs equal the module's (NumPy comparison), the frozen
graph reads no parameter, buffer or attribute (its only inputs are forward's), preserved_attrs stay
inputs, and conv + batch norm fold into one convolution."""
import numpy as np
import pytest

import ember
import ember.jit
import ember.nn as nn


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def graph_inputs(graph_text):
    header = graph_text.split("):\n", 1)[0]
    return [p.split(":")[0].strip().lstrip("%") for p in header[len("graph("):].split(",")]


def conv_bn_model():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(27, 2)).eval()
    with ember.no_grad():
        m[1].running_mean.uniform_(-1, 1)
        m[1].running_var.uniform_(0.5, 2)
        m[1].weight.uniform_(0.5, 2)
        m[1].bias.uniform_(-1, 1)
    return m


def test_freeze_scripted_module_inlines_every_attribute():
    m = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Dropout(0.3), nn.Linear(6, 2)).eval()
    frozen = ember.jit.freeze(ember.jit.script(m))
    assert graph_inputs(frozen.graph) == ["input"]
    x = ember.randn(5, 4)
    close(frozen(x), m(x))


def test_freeze_folds_ops_on_constants():
    m = nn.Linear(3, 2).eval()
    frozen = ember.jit.freeze(ember.jit.script(m))
    assert "aten::t(" not in frozen.graph  # weight.t() ran once at freezing
    x = ember.randn(4, 3)
    close(frozen(x), m(x))


def test_preserved_attrs_stay_inputs():
    m = nn.Sequential(nn.Linear(3, 2)).eval()
    frozen = ember.jit.freeze(ember.jit.script(m), preserved_attrs=["0.bias"])
    assert len(graph_inputs(frozen.graph)) == 2 and graph_inputs(frozen.graph)[1].endswith("bias")
    with ember.no_grad():
        m[0].bias.fill_(5.0)
    x = ember.randn(2, 3)
    close(frozen(x), m(x))  # the preserved bias is read at each call


def test_freeze_refuses_training_mode_and_plain_modules():
    m = nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="eval mode"):
        ember.jit.freeze(ember.jit.script(m))
    with pytest.raises(RuntimeError, match="expects a ScriptModule"):
        ember.jit.freeze(m)


def test_optimize_for_inference_folds_batch_norm_into_conv():
    m = conv_bn_model()
    x = ember.randn(2, 2, 5, 5)
    traced = ember.jit.trace(m, x)
    frozen = ember.jit.freeze(traced)
    assert "native_batch_norm" in frozen.graph
    opt = ember.jit.optimize_for_inference(traced)
    # the folded convolution, then fused with the relu after it (tests/jit/test_jit_conv_fusion.py)
    assert "native_batch_norm" not in opt.graph and "aten::_conv_add_relu" in opt.graph
    assert graph_inputs(opt.graph) == ["input"]
    y = ember.randn(3, 2, 5, 5)
    close(frozen(y), m(y))
    close(opt(y), m(y), tol=1e-4)


def test_frozen_module_saves_and_loads(tmp_path):
    import io
    m = conv_bn_model()
    opt = ember.jit.optimize_for_inference(ember.jit.trace(m, ember.randn(1, 2, 5, 5)))
    buf = io.BytesIO()
    ember.jit.save(opt, buf)
    buf.seek(0)
    loaded = ember.jit.load(buf)
    x = ember.randn(2, 2, 5, 5)
    close(loaded(x), opt(x), tol=1e-6)
