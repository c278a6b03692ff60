"""optimize_for_inference on scripted (not traced) modules: a scripted convolution is one aten::_conv_nd node
(batched or unbatched input), batch-norm checks stand in a straight line once their raising branches are
hoisted, so batch norms fold into the convolutions and conv/add/relu fuse as in traced graphs. _conv_nd itself
against a NumPy convolution written here, and its gradient by finite differences."""
import numpy as np
import pytest

import ember
import ember.nn as nn


class Block(nn.Module):
    """ResNet's block with a downsample branch computed after the main path, as torchvision writes it."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
        self.conv2, self.bn2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.down(x)
        return self.relu(out)


class Identity(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c)

    def forward(self, x):
        out = ember.relu(self.bn1(self.conv1(x)))
        return ember.relu(self.bn2(self.conv2(out)) + x)


def _randomize_norms(m):
    ember.manual_seed(0)
    for bn in m.modules():
        if isinstance(bn, nn.BatchNorm2d):  # statistics other than the initial ones, so the folding matters
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.uniform_(-0.5, 0.5)
    return m.eval()


def _close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-5)


# Block: conv1 + relu fused; conv2's output is the residual the downsample convolution adds, with the relu
@pytest.mark.parametrize("make, fused, plain", [(lambda: Block(3, 6, 2), 2, 1), (lambda: Identity(4), 2, 0)])
def test_scripted_blocks_fold_and_fuse(make, fused, plain):
    m = _randomize_norms(make())
    opt = ember.jit.optimize_for_inference(ember.jit.script(m))
    g = str(opt.graph)
    assert g.count("aten::_conv_add_relu(") == fused and g.count("aten::_conv_nd(") == plain
    for gone in ("aten::convolution(", "aten::native_batch_norm(", "aten::relu", "aten::add"):
        assert gone not in g, gone
    for _ in range(2):
        x = ember.randn(2, m.conv1.in_channels, 9, 8)
        _close(opt(x), m(x))


def test_unbatched_input_through_fused_convolutions():
    class Net(nn.Module):  # no batch norm: BatchNorm2d refuses unbatched input
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(4, 4, 3, padding=1)

        def forward(self, x):
            y = ember.relu(self.conv1(x))
            return ember.relu(self.conv2(y) + y)

    m = Net().eval()
    opt = ember.jit.optimize_for_inference(ember.jit.script(m))
    assert str(opt.graph).count("aten::_conv_add_relu(") == 2
    for shape in [(3, 7, 6), (2, 3, 7, 6)]:
        x = ember.randn(*shape)
        _close(opt(x), m(x))


def test_checks_still_raise_after_folding():
    m = _randomize_norms(Identity(4))
    opt = ember.jit.optimize_for_inference(ember.jit.script(m))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d"):
        opt(ember.randn(1, 1, 4, 5, 5))
    with pytest.raises(RuntimeError, match="expected input.*channels|channels"):
        opt(ember.randn(2, 3, 5, 5))


def test_a_residual_written_after_the_convolution_is_read_after_the_write():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 2, 3, padding=1)

        def forward(self, x):
            r = x * 2.0
            out = self.conv(x)
            r.add_(1.0)  # the fused add must see this
            return ember.relu(out + r)

    m = Net().eval()
    opt = ember.jit.optimize_for_inference(ember.jit.script(m))
    assert str(opt.graph).count("aten::_conv_add_relu(") == 1
    x = ember.randn(1, 2, 5, 5)
    _close(opt(x), m(x))


def test_hoisted_checks_keep_their_errors():
    @ember.jit.script
    def f(x: ember.Tensor) -> ember.Tensor:
        if x.dim() != 2:
            raise ValueError(f"expected a matrix, got {x.dim()}D")
        else:
            y = x * 2
        return y + 1

    assert "prim::If" in str(f.graph) and "Tensor = prim::If" not in str(f.graph)  # the If keeps only the raise
    np.testing.assert_allclose(f(ember.ones(2, 2)).numpy(), np.full((2, 2), 3.0))
    with pytest.raises(ValueError, match="expected a matrix, got 3D"):
        f(ember.ones(1, 2, 2))


def _np_conv(x, w, b, stride, padding, dilation, groups):
    """Direct convolution of a batched input: each output position's window times the weights."""
    nd = w.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    ks = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - dilation[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    cout, cin_g = w.shape[0], w.shape[1]
    og = cout // groups
    y = np.zeros((x.shape[0], cout, *out_sp))
    for o in np.ndindex(*out_sp):
        win = tuple(slice(o[i] * stride[i], o[i] * stride[i] + dilation[i] * (ks[i] - 1) + 1, dilation[i])
                    for i in range(nd))
        patch = xp[(slice(None), slice(None)) + win]
        for gi in range(groups):
            axes = list(range(1, nd + 2))
            y[(slice(None), slice(gi * og, (gi + 1) * og)) + o] = np.tensordot(
                patch[:, gi * cin_g:(gi + 1) * cin_g], w[gi * og:(gi + 1) * og], axes=(axes, axes))
    return y + b.reshape([1, -1] + [1] * nd) if b is not None else y


@pytest.mark.parametrize("xs, ws, stride, padding, dilation, groups", [
    ((2, 4, 9), (6, 2, 3), [2], [1], [1], 2),
    ((4, 9), (6, 2, 3), [1], [0], [2], 2),  # unbatched
    ((1, 3, 6, 7), (4, 3, 3, 2), [1, 2], [1, 0], [1, 1], 1),
    ((3, 6, 7), (4, 3, 3, 2), [2], [1], [1], 1),  # unbatched, one value for every dim
    ((1, 2, 4, 4, 3), (2, 2, 2, 2, 2), [1, 1, 1], [1, 0, 1], [1, 1, 1], 1),
])
def test_conv_nd_against_numpy(xs, ws, stride, padding, dilation, groups):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
    nd = len(ws) - 2
    per = [v * nd if len(v) == 1 else v for v in (stride, padding, dilation)]
    batched = x if len(xs) == nd + 2 else x[None]
    want = _np_conv(batched, w, b, *per, groups)
    want = want if len(xs) == nd + 2 else want[0]
    got = ember._C._conv_nd(ember.tensor(x), ember.tensor(w), ember.tensor(b), stride, padding, dilation, groups)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)


def test_conv_nd_gradient_and_bad_input():
    rng = np.random.default_rng(1)
    x = ember.tensor(rng.standard_normal((2, 5, 5)), requires_grad=True)
    w = ember.tensor(rng.standard_normal((3, 2, 2, 2)), requires_grad=True)
    b = ember.tensor(rng.standard_normal(3), requires_grad=True)
    assert ember.autograd.gradcheck(lambda x, w, b: ember._C._conv_nd(x, w, b, [1], [1], [1], 1), (x, w, b))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got "
                                           r"input of size: \[5, 5\]"):
        ember._C._conv_nd(ember.ones(5, 5), ember.ones(3, 2, 2, 2), None, [1], [0], [1], 1)
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a list of 2 values"):
        ember._C._conv_nd(ember.ones(2, 5, 5), ember.ones(3, 2, 2, 2), None, [1, 1, 1], [0], [1], 1)
