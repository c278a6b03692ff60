"""Every module type of ember.nn, traced inside a container with the default Tracer (ember.nn modules
are leaves, as torch.nn's are in torch.fx), gives the same output as the module run eagerly; the
Transformer layers are also traced through (attention as a leaf) and RNNs used as leaves with their
tuple outputs unpacked."""
import pytest

import ember
import ember.fx as fx
import ember.nn as nn


def r(*shape):
    return ember.randn(*shape)


def _cases():
    """{module class name: (factory, inputs factory)}."""
    img1, img2, img3 = (lambda: r(2, 3, 8)), (lambda: r(2, 3, 6, 6)), (lambda: r(1, 3, 4, 4, 4))
    pair = lambda: (r(4, 5), r(4, 5))  # noqa: E731
    probs = lambda: (ember.rand(4, 5) * 0.98 + 0.01, ember.rand(4, 5))  # noqa: E731
    cls_target = lambda: (r(4, 5), ember.tensor([0, 2, 4, 1]))  # noqa: E731
    act = lambda: r(3, 4)  # noqa: E731
    c = {
        "Conv1d": (lambda: nn.Conv1d(3, 4, 3), img1), "Conv2d": (lambda: nn.Conv2d(3, 4, 3, padding=1), img2),
        "Conv3d": (lambda: nn.Conv3d(3, 2, 2), img3), "ConvTranspose1d": (lambda: nn.ConvTranspose1d(3, 2, 3), img1),
        "ConvTranspose2d": (lambda: nn.ConvTranspose2d(3, 2, 3, stride=2), img2),
        "ConvTranspose3d": (lambda: nn.ConvTranspose3d(3, 2, 2), img3),
        "AvgPool1d": (lambda: nn.AvgPool1d(2), img1), "AvgPool2d": (lambda: nn.AvgPool2d(2), img2),
        "AvgPool3d": (lambda: nn.AvgPool3d(2), img3), "MaxPool1d": (lambda: nn.MaxPool1d(2), img1),
        "MaxPool2d": (lambda: nn.MaxPool2d(2), img2), "MaxPool3d": (lambda: nn.MaxPool3d(2), img3),
        "LPPool1d": (lambda: nn.LPPool1d(2, 2), img1), "LPPool2d": (lambda: nn.LPPool2d(2, 2), img2),
        "LPPool3d": (lambda: nn.LPPool3d(2, 2), img3),
        "AdaptiveAvgPool1d": (lambda: nn.AdaptiveAvgPool1d(3), img1),
        "AdaptiveAvgPool2d": (lambda: nn.AdaptiveAvgPool2d(3), img2),
        "AdaptiveAvgPool3d": (lambda: nn.AdaptiveAvgPool3d(2), img3),
        "AdaptiveMaxPool1d": (lambda: nn.AdaptiveMaxPool1d(3), img1),
        "AdaptiveMaxPool2d": (lambda: nn.AdaptiveMaxPool2d(3), img2),
        "AdaptiveMaxPool3d": (lambda: nn.AdaptiveMaxPool3d(2), img3),
        "MaxUnpool1d": None, "MaxUnpool2d": None, "MaxUnpool3d": None,
        "BatchNorm1d": (lambda: nn.BatchNorm1d(3), img1), "BatchNorm2d": (lambda: nn.BatchNorm2d(3), img2),
        "BatchNorm3d": (lambda: nn.BatchNorm3d(3), img3),
        "SyncBatchNorm": (lambda: nn.SyncBatchNorm(3), img2),  # no process group: BatchNorm's arithmetic
        "InstanceNorm1d": (lambda: nn.InstanceNorm1d(3, affine=True), img1),
        "InstanceNorm2d": (lambda: nn.InstanceNorm2d(3), img2), "InstanceNorm3d": (lambda: nn.InstanceNorm3d(3), img3),
        "LayerNorm": (lambda: nn.LayerNorm(6), img2), "GroupNorm": (lambda: nn.GroupNorm(1, 3), img2),
        "RMSNorm": (lambda: nn.RMSNorm(6), img2), "LocalResponseNorm": (lambda: nn.LocalResponseNorm(2), img2),
        "Linear": (lambda: nn.Linear(4, 6), act), "LazyLinear": (lambda: nn.Linear(4, 2), act),
        "Bilinear": (lambda: nn.Bilinear(4, 4, 3), lambda: (r(3, 4), r(3, 4))), "Identity": (nn.Identity, act),
        "Embedding": (lambda: nn.Embedding(10, 3), lambda: ember.tensor([[1, 2], [3, 9]])),
        "EmbeddingBag": (lambda: nn.EmbeddingBag(10, 3), lambda: ember.tensor([[1, 2], [3, 9]])),
        "Flatten": (nn.Flatten, img2), "Unflatten": (lambda: nn.Unflatten(1, (2, 2)), act),
        "Fold": (lambda: nn.Fold((3, 3), 2), lambda: r(1, 12, 4)), "Unfold": (lambda: nn.Unfold(2), img2),
        "PixelShuffle": (lambda: nn.PixelShuffle(2), lambda: r(1, 8, 2, 2)),
        "PixelUnshuffle": (lambda: nn.PixelUnshuffle(2), img2),
        "Upsample": (lambda: nn.Upsample(scale_factor=2), img2),
        "UpsamplingNearest2d": (lambda: nn.UpsamplingNearest2d(scale_factor=2), img2),
        "UpsamplingBilinear2d": (lambda: nn.UpsamplingBilinear2d(scale_factor=2), img2),
        "Dropout": (nn.Dropout, act), "Dropout1d": (nn.Dropout1d, img1), "Dropout2d": (nn.Dropout2d, img2),
        "Dropout3d": (nn.Dropout3d, img3), "AlphaDropout": (nn.AlphaDropout, act),
        "FeatureAlphaDropout": (nn.FeatureAlphaDropout, img2),
        "Softmax": (lambda: nn.Softmax(1), act), "Softmin": (lambda: nn.Softmin(1), act),
        "LogSoftmax": (lambda: nn.LogSoftmax(1), act), "Softmax2d": (nn.Softmax2d, img2),
        "GLU": (nn.GLU, act), "PReLU": (nn.PReLU, act), "RReLU": (nn.RReLU, act),
        "Threshold": (lambda: nn.Threshold(0.1, 20.0), act), "Hardtanh": (nn.Hardtanh, act),
        "MultiheadAttention": (lambda: nn.MultiheadAttention(8, 2), lambda: (r(3, 2, 8),) * 3),
        "RNN": (lambda: nn.RNN(4, 5, 2), lambda: r(3, 2, 4)), "LSTM": (lambda: nn.LSTM(4, 5), lambda: r(3, 2, 4)),
        "GRU": (lambda: nn.GRU(4, 5, batch_first=True), lambda: r(2, 3, 4)),
        "RNNCell": (lambda: nn.RNNCell(4, 5), lambda: r(2, 4)),
        "LSTMCell": (lambda: nn.LSTMCell(4, 5), lambda: r(2, 4)),
        "GRUCell": (lambda: nn.GRUCell(4, 5), lambda: r(2, 4)),
        "TransformerEncoderLayer": (lambda: nn.TransformerEncoderLayer(8, 2, 16), lambda: r(3, 2, 8)),
        "TransformerDecoderLayer": (lambda: nn.TransformerDecoderLayer(8, 2, 16), lambda: (r(3, 2, 8), r(4, 2, 8))),
        "TransformerEncoder": (lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2),
                               lambda: r(3, 2, 8)),
        "TransformerDecoder": (lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2),
                               lambda: (r(3, 2, 8), r(4, 2, 8))),
        "Transformer": (lambda: nn.Transformer(8, 2, 1, 1, 16), lambda: (r(3, 2, 8), r(4, 2, 8))),
        "CTCLoss": None, "CosineEmbeddingLoss": (nn.CosineEmbeddingLoss, lambda: (r(4, 5), r(4, 5),
                                                                              ember.tensor([1, -1, 1, -1]))),
        "CrossEntropyLoss": (nn.CrossEntropyLoss, cls_target), "NLLLoss": (nn.NLLLoss, cls_target),
        "MultiMarginLoss": (nn.MultiMarginLoss, cls_target),
        "MultiLabelMarginLoss": (nn.MultiLabelMarginLoss, lambda: (r(2, 4), ember.tensor([[3, 0, -1, 1],
                                                                                       [0, 1, 2, 3]]))),
        "BCELoss": (nn.BCELoss, probs), "KLDivLoss": (lambda: nn.KLDivLoss(reduction="batchmean"), pair),
        "MarginRankingLoss": (nn.MarginRankingLoss, lambda: (r(4), r(4), ember.tensor([1., -1., 1., 1.]))),
        "TripletMarginLoss": (nn.TripletMarginLoss, lambda: (r(4, 5), r(4, 5), r(4, 5))),
        "GaussianNLLLoss": (nn.GaussianNLLLoss, lambda: (r(4, 5), r(4, 5), ember.rand(4, 5) + 0.1)),
        "Sequential": (lambda: nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2))), act),
    }
    for name in ("BCEWithLogitsLoss", "HingeEmbeddingLoss", "HuberLoss", "L1Loss", "MSELoss",
                 "MultiLabelSoftMarginLoss", "PoissonNLLLoss", "SmoothL1Loss", "SoftMarginLoss"):
        c[name] = (getattr(nn, name), probs)
    for name in ("CELU", "ELU", "GELU", "Hardshrink", "Hardsigmoid", "Hardswish", "LeakyReLU", "LogSigmoid", "Mish",
                 "ReLU", "ReLU6", "SELU", "SiLU", "Sigmoid", "Softplus", "Softshrink", "Softsign", "Tanh",
                 "Tanhshrink"):
        c[name] = (getattr(nn, name), act)
    for dims, img in ((1, img1), (2, img2), (3, img3)):
        for kind in ("Circular", "Constant", "Reflection", "Replication", "Zero"):
            args = (1, 0.5) if kind == "Constant" else (1,)
            c[f"{kind}Pad{dims}d"] = ((lambda k=kind, d=dims, a=args: getattr(nn, f"{k}Pad{d}d")(*a)), img)
    return c


# not callable on their own (abstract bases, parameter containers) or needing more than one module
_NOT_TRACED_ALONE = {"Module", "RNNBase", "RNNCellBase", "ParameterList", "ParameterDict", "DataParallel",
                     "ModuleList", "ModuleDict"}
CASES = _cases()


def test_every_module_type_has_a_case():
    module_types = {n for n in dir(nn) if isinstance(getattr(nn, n), type) and issubclass(getattr(nn, n), nn.Module)}
    missing = module_types - set(CASES) - _NOT_TRACED_ALONE
    assert not missing, f"nn modules without a tracing case: {sorted(missing)}"


class Holder(nn.Module):
    """A user module calling the module under test (a leaf) and doing some work of its own around it
    (fx traces fixed signatures: one subclass per number of inputs)."""

    def __init__(self, inner, tensor_out):
        super().__init__()
        self.inner = inner
        self.scale = 2.0 if tensor_out else None

    def post(self, out):
        return out * self.scale if self.scale is not None else out


class Holder1(Holder):
    def forward(self, x):
        return self.post(self.inner(x))


class Holder2(Holder):
    def forward(self, x, y):
        return self.post(self.inner(x, y))


class Holder3(Holder):
    def forward(self, x, y, z):
        return self.post(self.inner(x, y, z))


def _flat(out):
    if isinstance(out, ember.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return []


def _same(a, b):
    fa, fb = _flat(a), _flat(b)
    assert len(fa) == len(fb) and fa
    for x, y in zip(fa, fb):
        assert x.shape == y.shape and x.dtype == y.dtype
        assert ember.allclose(x, y, rtol=1e-6, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", sorted(n for n, v in CASES.items() if v is not None))
def test_traced_module_matches_eager(name):
    ember.manual_seed(0)
    factory, inputs = CASES[name]
    inner = factory().eval()
    xs = inputs()
    xs = xs if isinstance(xs, tuple) else (xs,)
    model = (Holder1, Holder2, Holder3)[len(xs) - 1](inner, isinstance(inner(*xs), ember.Tensor))
    gm = fx.symbolic_trace(model)
    ops = {n.op for n in gm.graph.nodes}
    if name == "Sequential":
        # traced through: the leaves inside it are called, Sequential itself is not a node
        assert [n.target for n in gm.graph.nodes if n.op == "call_module"] == ["inner.0", "inner.1", "inner.2.0"]
    else:
        assert "call_module" in ops and [n.target for n in gm.graph.nodes if n.op == "call_module"] == ["inner"]
    _same(gm(*xs), model(*xs))


class AttentionLeaf(fx.Tracer):
    """Traces through everything but attention and RNNs."""

    def is_leaf_module(self, m, qualname):
        return isinstance(m, (nn.MultiheadAttention, nn.LSTM, nn.GRU, nn.RNN))


@pytest.mark.parametrize("name", ["TransformerEncoderLayer", "TransformerDecoderLayer"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_layers_traced_through(name, norm_first):
    ember.manual_seed(0)
    layer = getattr(nn, name)(8, 2, 16, norm_first=norm_first).eval()
    xs = (r(3, 2, 8),) if name.startswith("TransformerEncoder") else (r(3, 2, 8), r(4, 2, 8))
    gm = fx.GraphModule(layer, AttentionLeaf().trace(layer))
    targets = [n.target for n in gm.graph.nodes if n.op == "call_module"]
    assert "self_attn" in targets and "linear1" not in targets  # the layer itself was traced through
    assert any(n.op == "call_function" and n.target is ember.nn.functional.linear for n in gm.graph.nodes)
    _same(gm(*xs), layer(*xs))


class Seq2Seq(nn.Module):
    """RNNs as leaves whose tuple outputs are unpacked (`a, (h, c) = lstm(x)`) by the traced code."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6)
        self.gru = nn.GRU(6, 5, num_layers=2)
        self.cells = nn.ModuleList([nn.GRUCell(5, 5), nn.LSTMCell(5, 5)])
        self.heads = nn.ModuleDict({"a": nn.Linear(5, 2), "b": nn.Linear(5, 3)})

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        out, h2 = self.gru(out + c[-1])
        step = self.cells[0](out[-1], h2[-1])
        hx, cx = self.cells[1](step)
        return {k: head(hx + cx) for k, head in self.heads.items()}


def test_rnns_as_leaves_and_containers():
    ember.manual_seed(0)
    model = Seq2Seq()
    gm = fx.symbolic_trace(model)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_module"]
    assert targets == ["lstm", "gru", "cells.0", "cells.1", "heads.a", "heads.b"]
    x = r(5, 3, 4)
    out, ref = gm(x), model(x)
    assert set(out) == {"a", "b"}
    for k in out:
        assert ember.equal(out[k], ref[k])
