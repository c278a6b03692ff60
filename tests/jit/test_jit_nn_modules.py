"""Every core nn module the script compiler takes, scripted and run against its eager forward on the same
input (the eager module is the reference)."""
import numpy as np
import pytest

import ember
import ember.nn as nn


def _inputs(*shape):
    return lambda: (ember.randn(*shape),)


MODULES = {
    "Linear": (lambda: nn.Linear(4, 3), _inputs(2, 4)),
    "Conv1d": (lambda: nn.Conv1d(2, 3, 3, stride=2, padding=1), _inputs(1, 2, 8)),
    "Conv1d_unbatched": (lambda: nn.Conv1d(2, 3, 3), _inputs(2, 8)),
    "Conv2d": (lambda: nn.Conv2d(2, 4, 3, groups=2, dilation=2), _inputs(1, 2, 7, 7)),
    "Conv2d_same": (lambda: nn.Conv2d(2, 3, 4, padding="same"), _inputs(1, 2, 6, 6)),
    "Conv2d_valid": (lambda: nn.Conv2d(2, 3, (2, 3), padding="valid"), _inputs(1, 2, 6, 6)),
    "Conv3d": (lambda: nn.Conv3d(2, 3, 3), _inputs(1, 2, 5, 5, 5)),
    "ConvTranspose1d": (lambda: nn.ConvTranspose1d(2, 3, 3, stride=2), _inputs(1, 2, 5)),
    "ConvTranspose2d": (lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1), _inputs(1, 2, 4, 4)),
    "ConvTranspose3d": (lambda: nn.ConvTranspose3d(2, 2, 2), _inputs(1, 2, 3, 3, 3)),
    "BatchNorm1d_eval": (lambda: nn.BatchNorm1d(3).eval(), _inputs(4, 3)),
    "BatchNorm2d_train": (lambda: nn.BatchNorm2d(2), _inputs(3, 2, 3, 3)),
    "BatchNorm3d_eval": (lambda: nn.BatchNorm3d(2).eval(), _inputs(2, 2, 2, 2, 2)),
    "LayerNorm": (lambda: nn.LayerNorm([3, 4]), _inputs(2, 3, 4)),
    "GroupNorm": (lambda: nn.GroupNorm(2, 4), _inputs(2, 4, 3)),
    "InstanceNorm1d": (lambda: nn.InstanceNorm1d(3, affine=True), _inputs(2, 3, 5)),
    "InstanceNorm2d": (lambda: nn.InstanceNorm2d(2), _inputs(1, 2, 4, 4)),
    "ReLU": (lambda: nn.ReLU(), _inputs(3, 4)),
    "ReLU_inplace": (lambda: nn.ReLU(inplace=True), _inputs(3, 4)),
    "GELU": (lambda: nn.GELU(), _inputs(3, 4)),
    "Tanh": (lambda: nn.Tanh(), _inputs(3, 4)),
    "Sigmoid": (lambda: nn.Sigmoid(), _inputs(3, 4)),
    "Softmax": (lambda: nn.Softmax(dim=1), _inputs(3, 4)),
    "LogSoftmax": (lambda: nn.LogSoftmax(dim=0), _inputs(3, 4)),
    "LeakyReLU": (lambda: nn.LeakyReLU(0.1), _inputs(3, 4)),
    "ELU": (lambda: nn.ELU(), _inputs(3, 4)),
    "SiLU": (lambda: nn.SiLU(), _inputs(3, 4)),
    "Hardtanh": (lambda: nn.Hardtanh(-0.5, 0.5), _inputs(3, 4)),
    "MaxPool1d": (lambda: nn.MaxPool1d(2), _inputs(1, 2, 6)),
    "MaxPool2d": (lambda: nn.MaxPool2d(3, stride=2, padding=1), _inputs(1, 2, 7, 7)),
    "MaxPool3d": (lambda: nn.MaxPool3d(2), _inputs(1, 1, 4, 4, 4)),
    "AvgPool1d": (lambda: nn.AvgPool1d(3, stride=1), _inputs(1, 2, 6)),
    "AvgPool2d": (lambda: nn.AvgPool2d(2, ceil_mode=True), _inputs(1, 2, 5, 5)),
    "AvgPool3d": (lambda: nn.AvgPool3d(2), _inputs(1, 1, 4, 4, 4)),
    "AdaptiveAvgPool1d": (lambda: nn.AdaptiveAvgPool1d(3), _inputs(1, 2, 7)),
    "AdaptiveAvgPool2d": (lambda: nn.AdaptiveAvgPool2d((2, None)), _inputs(1, 2, 5, 4)),
    "AdaptiveMaxPool2d": (lambda: nn.AdaptiveMaxPool2d(2), _inputs(1, 2, 5, 5)),
    "Dropout_eval": (lambda: nn.Dropout(0.3).eval(), _inputs(3, 4)),
    "Embedding": (lambda: nn.Embedding(10, 3), lambda: (ember.tensor([[1, 2], [3, 9]]),)),
    "Sequential": (lambda: nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                                         nn.Linear(8, 3)), _inputs(2, 1, 6, 6)),
    "ModuleList_Sequential": (lambda: nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 2)), _inputs(2, 4)),
    "Flatten": (lambda: nn.Flatten(), _inputs(2, 3, 4)),
    "Unflatten": (lambda: nn.Unflatten(1, (2, 2)), _inputs(3, 4)),
    "Identity": (lambda: nn.Identity(), _inputs(3, 4)),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_scripted_module_equals_eager(name):
    make, inputs = MODULES[name]
    ember.manual_seed(0)
    eager, scripted_copy = make(), make()
    scripted_copy.load_state_dict(eager.state_dict())
    scripted_copy.train(eager.training)
    scripted = ember.jit.script(scripted_copy)
    for _ in range(2):  # twice: training-mode statistics update the same way
        args = inputs()
        want = eager(*[a.clone() for a in args])
        got = scripted(*[a.clone() for a in args])
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    for k, v in eager.state_dict().items():  # running statistics included
        np.testing.assert_allclose(scripted_copy.state_dict()[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6)


def test_max_pool_with_indices_returns_both():
    m = nn.MaxPool2d(2, return_indices=True)
    x = ember.randn(1, 1, 4, 4)
    (v, i), (ev, ei) = ember.jit.script(m)(x), m(x)
    np.testing.assert_array_equal(v.numpy(), ev.numpy())
    np.testing.assert_array_equal(i.numpy(), ei.numpy())


def test_conv_transpose_output_size_argument():
    m = nn.ConvTranspose2d(2, 2, 3, stride=2)
    x = ember.randn(1, 2, 4, 4)
    got = ember.jit.script(m)(x, [10, 10])
    np.testing.assert_allclose(got.detach().numpy(), m(x, [10, 10]).detach().numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="requested an output size of"):
        ember.jit.script(m)(x, [20, 20])


def test_conv_input_of_wrong_rank_raises_as_eager():
    m = nn.Conv2d(1, 1, 3)
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to conv2d"):
        ember.jit.script(m)(ember.randn(1, 1, 1, 5, 5))


def _close(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    elif want is None:
        assert got is None
    else:
        assert got.shape == want.shape
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


RECURRENT = {
    "RNN": (lambda: nn.RNN(4, 3), lambda: (ember.randn(5, 2, 4),)),
    "RNN_relu_2layers_hx": (lambda: nn.RNN(4, 3, num_layers=2, nonlinearity="relu"),
                            lambda: (ember.randn(5, 2, 4), ember.randn(2, 2, 3))),
    "GRU_bidirectional_batch_first": (lambda: nn.GRU(4, 3, bidirectional=True, batch_first=True),
                                      lambda: (ember.randn(2, 5, 4),)),
    "GRU_unbatched_hx": (lambda: nn.GRU(4, 3), lambda: (ember.randn(5, 4), ember.randn(1, 3))),
    "LSTM": (lambda: nn.LSTM(4, 3), lambda: (ember.randn(5, 2, 4),)),
    "LSTM_2layers_bidirectional_hx": (lambda: nn.LSTM(4, 3, num_layers=2, bidirectional=True),
                                      lambda: (ember.randn(5, 2, 4), (ember.randn(4, 2, 3), ember.randn(4, 2, 3)))),
    "LSTM_proj_no_bias": (lambda: nn.LSTM(4, 3, proj_size=2, bias=False), lambda: (ember.randn(5, 2, 4),)),
    "LSTM_unbatched": (lambda: nn.LSTM(4, 3), lambda: (ember.randn(5, 4),)),
    "MultiheadAttention": (lambda: nn.MultiheadAttention(4, 2), lambda: (ember.randn(3, 2, 4),) * 3),
    "MultiheadAttention_kdim_bias_kv": (lambda: nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True,
                                                                      add_zero_attn=True),
                                        lambda: (ember.randn(3, 2, 4), ember.randn(6, 2, 3), ember.randn(6, 2, 5))),
    "MultiheadAttention_batch_first_unbatched": (lambda: nn.MultiheadAttention(4, 1, batch_first=True),
                                                 lambda: (ember.randn(3, 4),) * 3),
    "TransformerEncoderLayer": (lambda: nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0),
                                lambda: (ember.randn(3, 2, 4),)),
    "TransformerEncoderLayer_norm_first_gelu": (lambda: nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0,
                                                                                   activation="gelu",
                                                                                   norm_first=True),
                                                lambda: (ember.randn(3, 2, 4),)),
    "TransformerDecoderLayer": (lambda: nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0),
                                lambda: (ember.randn(3, 2, 4), ember.randn(5, 2, 4))),
}


@pytest.mark.parametrize("name", list(RECURRENT))
def test_recurrent_and_attention_modules_equal_eager(name):
    make, inputs = RECURRENT[name]
    ember.manual_seed(0)
    m = make().eval()
    args = inputs()
    _close(ember.jit.script(m)(*args), m(*args))


def test_attention_masks_and_weights():
    m = nn.MultiheadAttention(4, 2).eval()
    q, k = ember.randn(3, 2, 4), ember.randn(5, 2, 4)
    bool_mask = ember.tensor([[False, True, False, False, True]] * 3)
    float_mask = ember.randn(3, 5)
    padding = ember.tensor([[False, False, False, True, True], [False] * 5])
    s = ember.jit.script(m)
    for mask in (bool_mask, float_mask):
        kwargs = dict(attn_mask=mask, key_padding_mask=padding, need_weights=True, average_attn_weights=False)
        _close(s(q, k, k, **kwargs), m(q, k, k, **kwargs))
    out, weights = s(q, k, k, need_weights=False)
    assert weights is None
    _close(out, m(q, k, k, need_weights=False)[0])


def test_encoder_layer_with_causal_mask():
    m = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0).eval()
    x = ember.randn(4, 2, 4)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    _close(ember.jit.script(m)(x, src_mask=mask, is_causal=True), m(x, src_mask=mask, is_causal=True))
