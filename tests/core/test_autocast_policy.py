"""Each op's output dtype under CPU autocast, bfloat16 and float16, against PyTorch 2.13's CPU policy
(aten/src/ATen/autocast_mode.cpp's AutocastCPU lists, written out here): lower_precision_fp ops run in
the region's dtype, fp32 ops in float32 (given lower-precision inputs), promote ops in the widest of
their floating inputs, and ops in no list keep their inputs' dtype."""
import pytest

import ember
import ember.nn.functional as F

LOWER, FP32, KEEP = "lower", "fp32", "keep"


def r(*shape, dtype=ember.float32):
    g = ember.Generator().manual_seed(sum(shape) + len(shape))
    return ember.randn(*shape, generator=g).to(dtype)


def spd(n, dtype):
    a = r(n, n)
    return (a @ a.T + ember.eye(n) * n).to(dtype)


# (name, policy, call given the dtype its floating inputs are made in)
TABLE = [
    # PyTorch's lower_precision_fp list (float32 inputs)
    ("mm", LOWER, lambda d: ember.mm(r(3, 4, dtype=d), r(4, 5, dtype=d))),
    ("matmul", LOWER, lambda d: ember.matmul(r(2, 3, 4, dtype=d), r(4, 5, dtype=d))),
    ("Tensor.matmul", LOWER, lambda d: r(3, 4, dtype=d).matmul(r(4, 2, dtype=d))),
    ("@", LOWER, lambda d: r(3, 4, dtype=d) @ r(4, 2, dtype=d)),
    ("bmm", LOWER, lambda d: ember.bmm(r(2, 3, 4, dtype=d), r(2, 4, 5, dtype=d))),
    ("addmm", LOWER, lambda d: ember.addmm(r(3, 5, dtype=d), r(3, 4, dtype=d), r(4, 5, dtype=d))),
    ("addbmm", LOWER, lambda d: ember.addbmm(r(3, 5, dtype=d), r(2, 3, 4, dtype=d), r(2, 4, 5, dtype=d))),
    ("baddbmm", LOWER, lambda d: ember.baddbmm(r(2, 3, 5, dtype=d), r(2, 3, 4, dtype=d), r(2, 4, 5, dtype=d))),
    ("linalg.vecdot", LOWER, lambda d: ember.linalg.vecdot(r(3, 4, dtype=d), r(3, 4, dtype=d))),
    ("linear", LOWER, lambda d: F.linear(r(3, 4, dtype=d), r(5, 4, dtype=d), r(5, dtype=d))),
    ("linear 3-D", LOWER, lambda d: F.linear(r(2, 3, 4, dtype=d), r(5, 4, dtype=d), r(5, dtype=d))),
    ("conv1d", LOWER, lambda d: F.conv1d(r(1, 2, 8, dtype=d), r(3, 2, 3, dtype=d), r(3, dtype=d))),
    ("conv2d", LOWER, lambda d: F.conv2d(r(1, 2, 6, 6, dtype=d), r(3, 2, 3, 3, dtype=d), r(3, dtype=d), padding=1)),
    ("conv2d same", LOWER, lambda d: F.conv2d(r(1, 2, 6, 6, dtype=d), r(3, 2, 2, 2, dtype=d), padding="same")),
    ("conv3d", LOWER, lambda d: F.conv3d(r(1, 2, 4, 4, 4, dtype=d), r(3, 2, 3, 3, 3, dtype=d))),
    ("conv_transpose1d", LOWER, lambda d: F.conv_transpose1d(r(1, 2, 5, dtype=d), r(2, 3, 3, dtype=d))),
    ("conv_transpose2d", LOWER, lambda d: F.conv_transpose2d(r(1, 2, 5, 5, dtype=d), r(2, 3, 3, 3, dtype=d),
                                                             r(3, dtype=d))),
    ("conv_transpose3d", LOWER, lambda d: F.conv_transpose3d(r(1, 2, 3, 3, 3, dtype=d), r(2, 3, 2, 2, 2, dtype=d))),
    ("conv_tbc", LOWER, lambda d: ember.conv_tbc(r(5, 2, 4, dtype=d), r(3, 4, 6, dtype=d), r(6, dtype=d))),
    ("prelu", LOWER, lambda d: F.prelu(r(2, 3, 4, dtype=d), r(3, dtype=d))),
    ("scaled_dot_product_attention", LOWER,
     lambda d: F.scaled_dot_product_attention(r(2, 3, 4, dtype=d), r(2, 5, 4, dtype=d), r(2, 5, 4, dtype=d))),
    # ops in no CPU list keep the dtype they are given
    ("add", KEEP, lambda d: r(3, dtype=d) + r(3, dtype=d)),
    ("mv", KEEP, lambda d: ember.mv(r(3, 4, dtype=d), r(4, dtype=d))),
    ("dot", KEEP, lambda d: ember.dot(r(4, dtype=d), r(4, dtype=d))),
    ("addmv", KEEP, lambda d: ember.addmv(r(3, dtype=d), r(3, 4, dtype=d), r(4, dtype=d))),
    ("sum", KEEP, lambda d: r(3, 4, dtype=d).sum()),
    ("softmax", KEEP, lambda d: F.softmax(r(3, 4, dtype=d), dim=1)),
    ("log_softmax", KEEP, lambda d: F.log_softmax(r(3, 4, dtype=d), dim=1)),
    ("relu", KEEP, lambda d: F.relu(r(3, 4, dtype=d))),
    ("gelu", KEEP, lambda d: F.gelu(r(3, 4, dtype=d))),
    ("layer_norm", KEEP, lambda d: F.layer_norm(r(3, 4, dtype=d), (4,))),
    ("max_pool2d", KEEP, lambda d: F.max_pool2d(r(1, 2, 4, 4, dtype=d), 2)),
    ("avg_pool2d", KEEP, lambda d: F.avg_pool2d(r(1, 2, 4, 4, dtype=d), 2)),
    ("pad constant", KEEP, lambda d: F.pad(r(1, 2, 4, 4, dtype=d), (1, 1, 1, 1))),
    ("reflection_pad3d", KEEP, lambda d: F.pad(r(1, 1, 3, 3, 3, dtype=d), (1, 1, 1, 1, 1, 1), mode="reflect")),
    # PyTorch's fp32 list (inputs in the region's lower-precision dtype)
    ("prod", FP32, lambda d: r(3, 4, dtype=d).prod()),
    ("prod dim", FP32, lambda d: r(3, 4, dtype=d).prod(1)),
    ("quantile", FP32, lambda d: ember.quantile(r(8, dtype=d), 0.3)),
    ("nanquantile", FP32, lambda d: ember.nanquantile(r(8, dtype=d), 0.3)),
    ("trace", FP32, lambda d: ember.trace(r(3, 3, dtype=d))),
    ("cdist", FP32, lambda d: ember.cdist(r(3, 4, dtype=d), r(5, 4, dtype=d))),
    ("linalg.inv", FP32, lambda d: ember.linalg.inv(spd(3, d))),
    ("inverse", FP32, lambda d: ember.inverse(spd(3, d))),
    ("linalg.solve", FP32, lambda d: ember.linalg.solve(spd(3, d), r(3, dtype=d))),
    ("linalg.cholesky", FP32, lambda d: ember.linalg.cholesky(spd(3, d))),
    ("linalg.eigvalsh", FP32, lambda d: ember.linalg.eigvalsh(spd(3, d))),
    ("linalg.svdvals", FP32, lambda d: ember.linalg.svdvals(r(3, 4, dtype=d))),
    ("linalg.qr", FP32, lambda d: ember.linalg.qr(r(3, 3, dtype=d))[0]),
    ("linalg.cond", FP32, lambda d: ember.linalg.cond(spd(3, d))),
    ("fft.fft", FP32, lambda d: ember.fft.fft(r(8, dtype=d)).real),
    ("fft.rfft", FP32, lambda d: ember.fft.rfft(r(8, dtype=d)).real),
    ("fft.irfft", FP32, lambda d: ember.fft.irfft(ember.fft.rfft(r(8)).real.to(d))),
    ("mse_loss", FP32, lambda d: F.mse_loss(r(3, 4, dtype=d), r(3, 4, dtype=d))),
    ("l1_loss", FP32, lambda d: F.l1_loss(r(3, 4, dtype=d), r(3, 4, dtype=d))),
    ("smooth_l1_loss", FP32, lambda d: F.smooth_l1_loss(r(3, 4, dtype=d), r(3, 4, dtype=d))),
    ("huber_loss", FP32, lambda d: F.huber_loss(r(3, 4, dtype=d), r(3, 4, dtype=d))),
    ("cross_entropy", FP32, lambda d: F.cross_entropy(r(3, 4, dtype=d), ember.tensor([0, 3, 1]))),
    ("nll_loss", FP32, lambda d: F.nll_loss(r(3, 4, dtype=d), ember.tensor([0, 3, 1]))),
    ("binary_cross_entropy", FP32,
     lambda d: F.binary_cross_entropy(r(3, 4).sigmoid().to(d), r(3, 4).sigmoid().to(d))),
    ("binary_cross_entropy_with_logits", FP32,
     lambda d: F.binary_cross_entropy_with_logits(r(3, 4, dtype=d), r(3, 4).sigmoid().to(d))),
    ("kl_div", FP32, lambda d: F.kl_div(r(3, 4, dtype=d), r(3, 4, dtype=d), reduction="batchmean")),
    ("soft_margin_loss", FP32, lambda d: F.soft_margin_loss(r(3, 4, dtype=d), r(3, 4, dtype=d).sign())),
    ("margin_ranking_loss", FP32,
     lambda d: F.margin_ranking_loss(r(4, dtype=d), r(4, dtype=d), ember.tensor([1., -1, 1, -1]).to(d))),
    ("hinge_embedding_loss", FP32,
     lambda d: F.hinge_embedding_loss(r(4, dtype=d), ember.tensor([1., -1, 1, -1]).to(d))),
    ("cosine_embedding_loss", FP32,
     lambda d: F.cosine_embedding_loss(r(3, 4, dtype=d), r(3, 4, dtype=d), ember.tensor([1., -1, 1]).to(d))),
    ("triplet_margin_loss", FP32,
     lambda d: F.triplet_margin_loss(r(3, 4, dtype=d), r(3, 4, dtype=d), r(3, 4, dtype=d))),
    ("multi_margin_loss", FP32, lambda d: F.multi_margin_loss(r(3, 4, dtype=d), ember.tensor([0, 3, 1]))),
    ("multilabel_margin_loss", FP32,
     lambda d: F.multilabel_margin_loss(r(2, 4, dtype=d), ember.tensor([[3, 0, -1, 1], [1, -1, 0, 0]]))),
    ("poisson_nll_loss", FP32, lambda d: F.poisson_nll_loss(r(3, 4, dtype=d), r(3, 4).abs().to(d))),
    ("grid_sample", FP32, lambda d: F.grid_sample(r(1, 2, 4, 4, dtype=d), r(1, 3, 3, 2).tanh().to(d),
                                                  align_corners=False)),
    ("max_pool3d", FP32, lambda d: F.max_pool3d(r(1, 1, 4, 4, 4, dtype=d), 2)),
    ("avg_pool3d", FP32, lambda d: F.avg_pool3d(r(1, 1, 4, 4, 4, dtype=d), 2)),
    ("adaptive_avg_pool3d", FP32, lambda d: F.adaptive_avg_pool3d(r(1, 1, 4, 4, 4, dtype=d), 2)),
    ("adaptive_max_pool3d", FP32, lambda d: F.adaptive_max_pool3d(r(1, 1, 4, 4, 4, dtype=d), 2)),
    ("reflection_pad1d", FP32, lambda d: F.pad(r(1, 2, 5, dtype=d), (2, 1), mode="reflect")),
    ("reflection_pad2d", FP32, lambda d: F.pad(r(1, 2, 5, 5, dtype=d), (1, 1, 2, 0), mode="reflect")),
    ("replication_pad3d", FP32, lambda d: F.pad(r(1, 1, 3, 3, 3, dtype=d), (1, 1, 1, 1, 1, 1), mode="replicate")),
]


@pytest.mark.parametrize("fast", [ember.bfloat16, ember.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("name,policy,call", TABLE, ids=[t[0] for t in TABLE])
def test_output_dtype_follows_pytorchs_cpu_policy(name, policy, call, fast):
    given = fast if policy == FP32 else ember.float32
    with ember.autocast("cpu", dtype=fast):
        out = call(given)
    expected = {LOWER: fast, FP32: ember.float32, KEEP: given}[policy]
    assert out.dtype == expected, f"{name}: {out.dtype}, PyTorch's CPU autocast gives {expected}"


@pytest.mark.parametrize("fast", [ember.bfloat16, ember.float16], ids=["bf16", "fp16"])
def test_lower_precision_ops_also_cast_inputs_of_the_other_half_type_and_leave_float64(fast):
    other = ember.float16 if fast == ember.bfloat16 else ember.bfloat16
    with ember.autocast("cpu", dtype=fast):
        assert ember.mm(r(2, 3, dtype=other), r(3, 2, dtype=other)).dtype == fast
        assert ember.mm(r(2, 3, dtype=ember.float64), r(3, 2, dtype=ember.float64)).dtype == ember.float64
        assert ember.mm(ember.ones(2, 2, dtype=ember.int64), ember.ones(2, 2, dtype=ember.int64)).dtype == ember.int64
        # out= and in-place forms are not autocast (PyTorch registers only the functional overloads)
        assert ember.mm(r(2, 3), r(3, 2), out=ember.empty(2, 2)).dtype == ember.float32
        # a Python number stays a number: addmm's beta does not stop the cast
        assert ember.addmm(r(2, 2), r(2, 3), r(3, 2), beta=2).dtype == fast


@pytest.mark.parametrize("op", [ember.cat, ember.stack])
def test_promote_ops_take_the_widest_floating_input(op):
    a, b = r(2, 3), r(2, 3, dtype=ember.bfloat16)
    with ember.autocast("cpu"):
        assert op([a, b]).dtype == ember.float32
        assert op([b, b]).dtype == ember.bfloat16
        assert op([a.double(), b]).dtype == ember.float64  # float64 is not cast; the op's own promotion decides
        assert op([b, ember.ones(2, 3, dtype=ember.int64)]).dtype == ember.bfloat16
        with pytest.raises(RuntimeError, match="Unexpected floating ScalarType in at::autocast::prioritize"):
            op([b, r(2, 3, dtype=ember.float16)])
    with ember.autocast("cpu", dtype=ember.float16):
        with pytest.raises(RuntimeError, match="Unexpected floating ScalarType"):
            op([b, b])


def test_index_copy_promotes():
    with ember.autocast("cpu"):
        out = ember.index_copy(r(4, 3, dtype=ember.bfloat16), 0, ember.tensor([0, 2]), r(2, 3))
    assert out.dtype == ember.float32


def test_lower_precision_values_are_the_products_of_the_rounded_inputs():
    np = pytest.importorskip("numpy")
    a, b = r(16, 32), r(32, 8)
    with ember.autocast("cpu"):
        out = ember.mm(a, b)
    ref = a.to(ember.bfloat16).double().numpy() @ b.to(ember.bfloat16).double().numpy()
    got = out.double().numpy()
    assert np.allclose(got, ref, rtol=2 ** -7, atol=2 ** -7 * np.abs(ref).max())
    assert not np.array_equal(got, a.double().numpy() @ b.double().numpy())


@pytest.mark.parametrize("fast", [ember.bfloat16, ember.float16], ids=["bf16", "fp16"])
def test_recurrent_layers_follow_pytorchs_onednn_rnn_layer_policy(fast):
    x = r(5, 3, 8)
    with ember.autocast("cpu", dtype=fast):
        out, (h, c) = ember.nn.LSTM(8, 4, num_layers=2, bidirectional=True)(x)
        assert (out.dtype, h.dtype, c.dtype) == (fast, fast, fast)
        out, h = ember.nn.RNN(8, 4, nonlinearity="relu", batch_first=True)(x)
        assert (out.dtype, h.dtype) == (fast, fast)
        out, (h, c) = ember.nn.LSTM(8, 4)(x, (ember.zeros(1, 3, 4), ember.zeros(1, 3, 4)))
        assert out.dtype == fast and h.dtype == fast
        assert ember.nn.LSTM(8, 4)(x[:, 0])[0].dtype == fast  # unbatched
        assert ember.nn.GRU(8, 4)(x)[0].dtype == ember.float32  # GRU is in no CPU list
        # cells: PyTorch's RNN cell is two linear()s, its LSTM and GRU cells are in no list
        assert ember.nn.RNNCell(8, 4)(x[0]).dtype == fast
        assert ember.nn.RNNCell(8, 4, nonlinearity="relu")(x[0].to(fast), ember.zeros(3, 4)).dtype == fast
        assert ember.nn.LSTMCell(8, 4)(x[0])[0].dtype == ember.float32
        assert ember.nn.GRUCell(8, 4)(x[0]).dtype == ember.float32
        packed = ember.nn.utils.rnn.pack_padded_sequence(x, [5, 4, 2])
        assert ember.nn.LSTM(8, 4)(packed)[0].data.dtype == ember.float32  # PyTorch's packed path is not cast


def test_lstm_under_autocast_trains_its_float32_weights():
    lstm = ember.nn.LSTM(8, 4)
    with ember.autocast("cpu"):
        out, _ = lstm(r(5, 3, 8))
    out.float().sum().backward()
    assert all(p.grad is not None and p.grad.dtype == ember.float32 for p in lstm.parameters())
