"""The issue's acceptance: a CNN, an LSTM and a Transformer encoder exported by ember.onnx.export give the
eager outputs when onnxruntime runs the file (float tolerance); and the other core modules' mappings."""
import pytest
from onnx_test_utils import assert_matches, export

import ember
import ember.nn as nn
import ember.nn.functional as F


@pytest.fixture(autouse=True)
def _seed():
    ember.manual_seed(0)


def _randomize_bn(bn):
    bn.running_mean.normal_()
    bn.running_var.uniform_(0.5, 2.0)
    bn.weight.data.uniform_(0.5, 1.5)
    bn.bias.data.normal_()


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, groups=2, dilation=2, padding="same")
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AvgPool2d(3, stride=2, padding=1)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(4, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.pool(F.gelu(self.conv2(x)) + x)
        x = self.avg(F.silu(self.up(x)))
        x = self.gap(x)
        x = x.view(x.size(0), -1)
        return F.log_softmax(self.fc(self.drop(x)), dim=1)


def test_cnn_matches_eager():
    model = SmallCNN()
    _randomize_bn(model.bn1)
    model.eval()
    x = ember.randn(2, 3, 16, 16)
    exported = export(model, (x,))
    assert_matches(exported.run(x), model(x))


def test_conv1d_sequential_with_flatten_and_activations():
    model = nn.Sequential(nn.Conv1d(2, 6, 5, stride=2, padding=2), nn.BatchNorm1d(6), nn.Tanh(),
                          nn.MaxPool1d(2), nn.Conv1d(6, 4, 3, padding="valid"), nn.Sigmoid(),
                          nn.AvgPool1d(2), nn.Flatten(), nn.Linear(16, 3), nn.Softmax(dim=-1))
    _randomize_bn(model[1])
    model.eval()
    x = ember.randn(4, 2, 40)
    assert_matches(export(model, (x,)).run(x), model(x))


@pytest.mark.parametrize("batch_first,bidirectional,num_layers", [(False, False, 1), (True, True, 2),
                                                                  (False, True, 3)])
def test_lstm_matches_eager(batch_first, bidirectional, num_layers):
    lstm = nn.LSTM(5, 7, num_layers=num_layers, batch_first=batch_first, bidirectional=bidirectional).eval()
    x = ember.randn(3, 6, 5)
    assert_matches(export(lstm, (x,)).run(x), lstm(x))


def test_lstm_with_initial_state_and_no_bias():
    lstm = nn.LSTM(4, 6, num_layers=2, bias=False, bidirectional=True).eval()
    x, h0, c0 = ember.randn(5, 2, 4), ember.randn(4, 2, 6), ember.randn(4, 2, 6)

    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = lstm

        def forward(self, x, h0, c0):
            out, (h, c) = self.lstm(x, (h0, c0))
            return out[-1, :, 6:] + h[-1], c

    model = WithState().eval()
    assert_matches(export(model, (x, h0, c0)).run(x, h0, c0), model(x, h0, c0))


def test_gru_matches_eager():
    gru = nn.GRU(4, 6, num_layers=2, bidirectional=True, batch_first=True).eval()
    x, h0 = ember.randn(2, 5, 4), ember.randn(4, 2, 6)
    assert_matches(export(gru, (x, h0)).run(x, h0), gru(x, h0))


class LSTMClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8)
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.norm = nn.LayerNorm(16)
        self.head = nn.Linear(16, 3)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.head(self.norm(out[:, -1, :]))


def test_embedding_lstm_classifier_matches_eager():
    model = LSTMClassifier().eval()
    tokens = ember.randint(0, 20, (4, 9))
    assert_matches(export(model, (tokens,)).run(tokens), model(tokens))


@pytest.mark.parametrize("activation,norm_first", [("relu", False), ("gelu", True)])
def test_transformer_encoder_matches_eager(activation, norm_first):
    layer = nn.TransformerEncoderLayer(16, 4, 32, activation=activation, norm_first=norm_first)
    encoder = nn.TransformerEncoder(layer, 2).eval()
    x = ember.randn(7, 3, 16)
    assert_matches(export(encoder, (x,)).run(x), encoder(x))


def test_transformer_encoder_batch_first_with_masks():
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    x = ember.randn(2, 5, 8)
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    padding = ember.tensor([[False] * 5, [False, False, False, True, True]])
    exported = export(encoder, (x,), kwargs={"mask": causal, "src_key_padding_mask": padding})
    assert exported.input_names == ["src", "mask", "src_key_padding_mask"]
    assert_matches(exported.run(x, causal, padding), encoder(x, mask=causal, src_key_padding_mask=padding))


@pytest.mark.parametrize("average", [True, False])
def test_multihead_attention_weights_match_eager(average):
    mha = nn.MultiheadAttention(12, 3).eval()
    q, kv = ember.randn(4, 2, 12), ember.randn(6, 2, 12)

    class Attend(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = mha

        def forward(self, q, kv):
            return self.mha(q, kv, kv, average_attn_weights=average)

    model = Attend().eval()
    assert_matches(export(model, (q, kv)).run(q, kv), model(q, kv))


def test_parameters_become_initializers_named_as_the_module_names_them():
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2)).eval()
    exported = export(model, (ember.randn(1, 1, 5, 5),))
    names = {i.name for i in exported.proto.graph.initializer}
    assert {"0_weight", "0_bias", "1_running_mean", "1_running_var", "1_weight", "1_bias"} <= names
    assert [i.name for i in exported.proto.graph.input] == ["input"]


@pytest.mark.parametrize("opset", [18, 19, 20, 21])
def test_models_at_newer_opsets(opset):
    cnn = SmallCNN()
    _randomize_bn(cnn.bn1)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)
    for model, x in ((cnn.eval(), ember.randn(1, 3, 8, 8)), (encoder.eval(), ember.randn(4, 2, 8)),
                     (LSTMClassifier().eval(), ember.randint(0, 20, (2, 5)))):
        exported = export(model, (x,), opset_version=opset)
        assert exported.proto.opset_import[0].version == opset
        assert_matches(exported.run(x), model(x))


@pytest.mark.parametrize("kwargs", [dict(stride=2, padding=1, output_padding=1), dict(stride=3, padding=2, dilation=2),
                                    dict(stride=1, groups=2, bias=False)])
def test_conv_transpose_options(kwargs):
    model = nn.Sequential(nn.ConvTranspose2d(4, 6, 3, **kwargs), nn.ReLU()).eval()
    x = ember.randn(2, 4, 5, 6)
    assert_matches(export(model, (x,)).run(x), model(x))


def test_conv_transpose1d():
    model = nn.ConvTranspose1d(3, 2, 4, stride=2, padding=1, output_padding=1).eval()
    x = ember.randn(2, 3, 7)
    assert_matches(export(model, (x,)).run(x), model(x))


def test_cross_attention_with_own_key_value_sizes_and_no_bias():
    mha = nn.MultiheadAttention(12, 4, bias=False, kdim=5, vdim=7, batch_first=True).eval()
    q, k, v = ember.randn(2, 3, 12), ember.randn(2, 6, 5), ember.randn(2, 6, 7)

    class Cross(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = mha

        def forward(self, q, k, v):
            return self.mha(q, k, v, need_weights=False)[0]

    model = Cross().eval()
    assert_matches(export(model, (q, k, v)).run(q, k, v), model(q, k, v))


def test_norms_without_affine_parameters():
    model = nn.Sequential(nn.BatchNorm2d(3, affine=False), nn.Flatten(2), nn.LayerNorm(20, elementwise_affine=False),
                          nn.LayerNorm([3, 20], bias=False)).eval()
    _ = model(ember.randn(4, 3, 4, 5))  # eval: running statistics unchanged, still the defaults
    model[0].running_mean.normal_()
    x = ember.randn(2, 3, 4, 5)
    assert_matches(export(model, (x,)).run(x), model(x))
