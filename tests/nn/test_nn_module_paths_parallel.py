"""PyTorch's nn module paths (nn.modules.sparse.Embedding, ...), nn.parallel's DataParallel and
data_parallel on a machine without GPUs, Dropout2d/3d on other ranks with PyTorch's warnings, and
RNNBase.flatten_parameters; expected behaviour and messages are PyTorch 2.13's, written out here."""
import importlib

import numpy as np
import pytest

import ember
from ember import nn

PATHS = [("sparse", "Embedding"), ("sparse", "EmbeddingBag"), ("activation", "MultiheadAttention"),
         ("activation", "ReLU"), ("conv", "Conv2d"), ("conv", "_ConvNd"), ("batchnorm", "_BatchNorm"),
         ("batchnorm", "_NormBase"), ("batchnorm", "BatchNorm2d"), ("instancenorm", "InstanceNorm1d"),
         ("loss", "_Loss"), ("loss", "_WeightedLoss"), ("module", "Module"), ("linear", "Linear"),
         ("linear", "NonDynamicallyQuantizableLinear"), ("rnn", "RNNBase"), ("rnn", "RNNCellBase"),
         ("pooling", "MaxUnpool2d"), ("pooling", "LPPool2d"), ("container", "Sequential"),
         ("normalization", "LayerNorm"), ("dropout", "Dropout2d"), ("transformer", "TransformerEncoderLayer")]


@pytest.mark.parametrize("module,name", PATHS)
def test_pytorch_module_paths_resolve(module, name):
    cls = getattr(importlib.import_module(f"ember.nn.modules.{module}"), name)
    if not name.startswith("_") and name != "NonDynamicallyQuantizableLinear":
        assert getattr(nn, name) is cls


def test_safe_globals_classes_live_under_pytorchs_names():
    from ember.nn.modules.linear import NonDynamicallyQuantizableLinear
    from ember.nn.modules.sparse import Embedding
    assert Embedding.__module__ == "ember.nn.modules.sparse"
    assert NonDynamicallyQuantizableLinear.__module__ == "ember.nn.modules.linear"
    assert issubclass(NonDynamicallyQuantizableLinear, nn.Linear)
    mha = nn.MultiheadAttention(4, 2)
    assert type(mha.out_proj) is NonDynamicallyQuantizableLinear
    assert "(out_proj): NonDynamicallyQuantizableLinear(in_features=4, out_features=4, bias=True)" in repr(mha)
    assert mha.out_proj.bias.abs().sum().item() == 0  # MultiheadAttention's reset still zeroes it


def test_data_parallel_runs_the_module_on_cpu():
    inner = nn.Linear(3, 2)
    dp = nn.DataParallel(inner, device_ids=[0, 1])
    assert nn.parallel.DataParallel is nn.DataParallel
    assert dp.device_ids == [] and dp.module is inner
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    x = ember.tensor(np.arange(6.0).reshape(2, 3), dtype=ember.float32)
    want = x.numpy() @ inner.weight.detach().numpy().T + inner.bias.detach().numpy()
    np.testing.assert_allclose(dp(x).detach().numpy(), want, rtol=1e-6)
    dp(x).sum().backward()
    np.testing.assert_allclose(inner.weight.grad.numpy(), np.tile(x.numpy().sum(0), (2, 1)), rtol=1e-6)
    assert "DataParallel(\n  (module): Linear(in_features=3, out_features=2, bias=True)\n)" == repr(dp)
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        nn.parallel.data_parallel(inner, x)


def _drop(module_cls, shape, seed=0):
    ember.manual_seed(seed)
    return module_cls(0.5)(ember.ones(*shape)).numpy()


def test_dropout2d_on_2d_input_drops_single_entries_with_pytorchs_warning():
    with pytest.warns(UserWarning, match=r"dropout2d: Received a 2-D input to dropout2d, which is deprecated"):
        y = _drop(nn.Dropout2d, (64, 32))
    assert set(np.unique(y)) <= {0.0, 2.0}
    # an entry-wise mask (PyTorch's feature dropout over (N, L)), not one shared per row
    assert any(len(set(row)) == 2 for row in y)


def test_dropout2d_on_3d_input_is_channelwise_1d():
    with pytest.warns(UserWarning, match="assuming that channel-wise 1D dropout behavior is desired"):
        y = _drop(nn.Dropout2d, (8, 16, 5))
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert (y == y[:, :, :1]).all()  # one draw per (N, C)
    assert 0 < (y[:, :, 0] == 0).sum() < 8 * 16


def test_dropout2d_other_ranks():
    with pytest.warns(UserWarning, match="Received a 5-D input to dropout2d"):
        y = _drop(nn.Dropout2d, (4, 8, 2, 2, 2))
    assert (y == y[:, :, :1, :1, :1]).all()
    with pytest.warns(UserWarning, match="Received a 1-D input"), \
            pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        _drop(nn.Dropout2d, (4,))
    y = nn.Dropout2d(0.5).eval()(ember.ones(2, 3, 4, 4))
    assert (y.numpy() == 1).all()


def test_dropout3d_unbatched_other_rank_drops_rows():
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout3d"):
        y = _drop(nn.Dropout3d, (32, 6))
    assert (y == y[:, :1]).all()  # PyTorch adds a batch dim: (1, 32, 6) with one draw per row


def test_flatten_parameters_is_a_no_op_that_keeps_results():
    lstm = nn.LSTM(3, 4, num_layers=2)
    x = ember.randn(5, 2, 3)
    before = lstm(x)[0].detach().numpy()
    assert lstm.flatten_parameters() is None
    np.testing.assert_array_equal(lstm(x)[0].detach().numpy(), before)
    nn.GRU(2, 2).flatten_parameters()
