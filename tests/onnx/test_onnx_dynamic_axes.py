"""dynamic_axes: the named axes are symbolic in the written model, and onnxruntime runs it on other sizes
with the eager results."""
import pytest
from onnx_test_utils import assert_matches, export

import ember
import ember.nn as nn
import ember.nn.functional as F


@pytest.fixture(autouse=True)
def _seed():
    ember.manual_seed(0)


def _dims(value_info):
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(x.view(x.size(0), -1))


def test_batch_axis_of_a_cnn():
    model = Net().eval()
    exported = export(model, (ember.randn(2, 1, 8, 8),), input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    assert _dims(exported.proto.graph.input[0]) == ["batch", 1, 8, 8]
    assert _dims(exported.proto.graph.output[0])[0] == "batch"
    for n in (1, 7):
        x = ember.randn(n, 1, 8, 8)
        assert_matches(exported.run(x), model(x))


def test_axes_given_as_a_list_get_generated_names():
    model = Net().eval()
    exported = export(model, (ember.randn(2, 1, 8, 8),), input_names=["x"], dynamic_axes={"x": [0]})
    assert _dims(exported.proto.graph.input[0]) == ["x_dynamic_axes_1", 1, 8, 8]
    x = ember.randn(3, 1, 8, 8)
    assert_matches(exported.run(x), model(x))


def test_batch_and_sequence_axes_of_an_lstm():
    lstm = nn.LSTM(3, 5, num_layers=2, batch_first=True, bidirectional=True).eval()
    exported = export(lstm, (ember.randn(2, 4, 3),), input_names=["x"], output_names=["y", "h", "c"],
                      dynamic_axes={"x": {0: "batch", 1: "time"}, "y": {0: "batch", 1: "time"}})
    for shape in ((1, 9, 3), (5, 2, 3)):
        x = ember.randn(*shape)
        assert_matches(exported.run(x), lstm(x))


def test_sequence_and_batch_axes_of_a_transformer_encoder():
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32), 2).eval()
    exported = export(encoder, (ember.randn(6, 2, 16),), input_names=["src"],
                      dynamic_axes={"src": {0: "seq", 1: "batch"}})
    for shape in ((11, 1, 16), (3, 5, 16)):
        x = ember.randn(*shape)
        assert_matches(exported.run(x), encoder(x))


def test_flatten_and_reshape_follow_a_dynamic_batch():
    class Heads(nn.Module):
        def forward(self, x):
            y = x.reshape(x.shape[0], 3, 4).permute(0, 2, 1)
            return ember.flatten(y, 1) + x.flatten(1).mean(dim=1, keepdim=True)

    model = Heads()
    exported = export(model, (ember.randn(2, 12),), dynamic_axes={"x": {0: "n"}})
    x = ember.randn(5, 12)
    assert_matches(exported.run(x), model(x))


def test_causal_attention_mask_is_shaped_at_run_time():
    class Causal(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(8, 24)

        def forward(self, x):
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    model = Causal().eval()
    exported = export(model, (ember.randn(2, 5, 8),), input_names=["x"], dynamic_axes={"x": {0: "b", 1: "t"}})
    for shape in ((1, 9, 8), (3, 2, 8)):
        x = ember.randn(*shape)
        assert_matches(exported.run(x), model(x))
