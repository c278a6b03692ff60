"""optimize_for_inference's convolution fusions: relu(conv), conv + x and relu(conv + x) become one
aten::_conv_add_relu (the add and relu as the convolution's epilogue), after batch norms are folded; outputs
equal the eager module's (a NumPy comparison), and patterns whose intermediates are read elsewhere stay."""
import io

import numpy as np

import ember
import ember.nn as nn
import ember.nn.functional as F


class BasicBlock(nn.Module):
    """ResNet-18's block: conv-bn-relu, conv-bn, + identity, relu (in-place relus and +=, as torchvision's)."""

    def __init__(self, c):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


def _block():
    ember.manual_seed(0)
    m = BasicBlock(4).eval()
    for bn in (m.bn1, m.bn2):  # statistics other than the initial ones, so the folding matters
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.data.uniform_(0.5, 1.5)
    return m


def _close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_basic_block_fuses_into_two_ops():
    m = _block()
    x = ember.randn(2, 4, 8, 8)
    opt = ember.jit.optimize_for_inference(ember.jit.trace(m, x))
    g = opt.graph
    assert g.count("aten::_conv_add_relu(") == 2
    for gone in ("aten::convolution(", "aten::native_batch_norm(", "aten::relu", "aten::add"):
        assert gone not in g
    for _ in range(2):
        y = ember.randn(3, 4, 6, 5)
        _close(opt(y), m(y))


def test_patterns_and_their_limits():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c = nn.Conv2d(2, 3, 3), nn.Conv2d(3, 3, 1), nn.Conv2d(3, 3, 1)

        def forward(self, x):
            y = F.relu(self.a(x))  # relu(conv)
            z = y + self.b(y)  # other + conv, no relu
            w = self.c(z)
            return F.relu(w) + w  # the convolution is read twice: not fused

    ember.manual_seed(1)
    m = Net().eval()
    x = ember.randn(1, 2, 6, 6)
    opt = ember.jit.optimize_for_inference(ember.jit.trace(m, x))
    g = opt.graph
    assert g.count("aten::_conv_add_relu(") == 2 and g.count("aten::convolution(") == 1
    _close(opt(x), m(x))


def test_transposed_convolution_is_left_alone():
    m = nn.Sequential(nn.ConvTranspose2d(2, 2, 3), nn.ReLU()).eval()
    x = ember.randn(1, 2, 4, 4)
    opt = ember.jit.optimize_for_inference(ember.jit.trace(m, x))
    assert "_conv_add_relu" not in opt.graph and "aten::relu" in opt.graph
    _close(opt(x), m(x))


def test_residual_that_broadcasts_and_save_load():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 2, 1)

        def forward(self, x, bias_row):
            return F.relu(self.conv(x) + bias_row)

    ember.manual_seed(2)
    m = Net().eval()
    x, row = ember.randn(2, 2, 3, 5), ember.randn(1, 1, 1, 5)
    opt = ember.jit.optimize_for_inference(ember.jit.trace(m, (x, row)))
    assert "aten::_conv_add_relu(" in opt.graph
    _close(opt(x, row), m(x, row))
    buf = io.BytesIO()
    ember.jit.save(opt, buf)
    buf.seek(0)
    loaded = ember.jit.load(buf)
    _close(loaded(x, row), m(x, row))


def test_fused_op_against_numpy():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((1, 2, 4, 4)).astype(np.float32), rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    b, r = rng.standard_normal(3).astype(np.float32), rng.standard_normal((1, 3, 2, 2)).astype(np.float32)
    got = ember._C._conv_add_relu(ember.tensor(x), ember.tensor(w), ember.tensor(b), [1], [0], [1], 1,
                                  ember.tensor(r), True)
    want = np.zeros((1, 3, 2, 2))
    for o in range(3):
        for i in range(2):
            for j in range(2):
                want[0, o, i, j] = (x[0, :, i:i + 3, j:j + 3] * w[o]).sum() + b[o]
    np.testing.assert_allclose(got.numpy(), np.maximum(want + r, 0), rtol=1e-5, atol=1e-5)
