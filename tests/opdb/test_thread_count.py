"""Every op in the op database gives the same result on 1, 2 and 3 threads: bit for bit for
elementwise ops and integer/bool results, within float rounding where a reduction, a product or a
transform may add in another order.

Inputs split across the threads: parallel_for's grain is capped at 1 for this module
(ember._C._set_parallel_grain_cap), so each parallel loop over more than one item cuts its range
into one piece per thread just as a large input does, at every piece boundary an input's size could
put there; elementwise ops also run on inputs past the real grain (32768 elements) three times
over. Kernels that decide to split by their own size threshold (matrix products, FFTs, sorting,
histograms) also get samples past it (BIG_SAMPLES). Random ops draw from the same seed on each
thread count, with real (not degenerate) parameters, and private ops run through their public
callers (CUSTOM). The coverage test requires every op of the YAML to be in one of these groups."""
import numpy as np
import pytest

import ember
from opdb import entries  # noqa: F401  (registers every OpInfo)
from ember.testing.opinfo import COMPLEX, FLOATS, REGISTRY, Sample, random_array, sample_args, to_ember, to_numpy
from opdb.test_pointwise import POINTWISE, dtypes_under_test
from opdb.test_structured import STRUCTURED
from tools.opgen import opdb

ALL_OPS = {op.name: op for op in opdb.load()}
THREADS = (1, 2, 3)
# Float results of non-elementwise ops, compared to the 1-thread result: (rtol, atol) per dtype.
REORDER_TOL = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1e-5, 1e-6),
               "float64": (1e-12, 1e-14), "complex64": (1e-5, 1e-6), "complex128": (1e-12, 1e-14)}


@pytest.fixture(scope="module", autouse=True)
def pieces_at_every_size():
    threads = ember.get_num_threads()
    cap = ember._C._set_parallel_grain_cap(1)
    yield
    ember._C._set_parallel_grain_cap(cap)
    ember.set_num_threads(threads)


def at_each_thread_count(call):
    """call()'s result on each thread count, each from the same random seed; and whether any
    parallel loop of the multi-threaded calls ran on more than one thread."""
    results, split = [], False
    for n in THREADS:
        ember.set_num_threads(n)
        ember.manual_seed(1234)
        before = ember._C._parallel_jobs_run()
        results.append(_numpy_tree(call()))
        split = split or (n > 1 and ember._C._parallel_jobs_run() > before)
    return results, split


def _numpy_tree(x):
    if isinstance(x, (list, tuple)):
        return [_numpy_tree(i) for i in x]
    if isinstance(x, ember.Tensor):
        return (str(x.dtype).split(".")[-1], tuple(x.shape), to_numpy(x))
    return x


def _flat(x):
    if isinstance(x, list):
        return [leaf for i in x for leaf in _flat(i)]
    return [x]


def assert_same(results, exact, msg):
    want = _flat(results[0])
    for n, got in zip(THREADS[1:], results[1:]):
        got = _flat(got)
        assert len(got) == len(want), msg
        for g, w in zip(got, want):
            where = f"{msg}: {n} threads vs 1"
            if not isinstance(w, tuple):
                assert g == w or (g != g and w != w), where
                continue
            (gd, gs, ga), (wd, ws, wa) = g, w
            assert (gd, gs) == (wd, ws), where
            if exact or wd not in REORDER_TOL:
                np.testing.assert_array_equal(ga, wa, err_msg=where)
            else:
                rtol, atol = REORDER_TOL[wd]
                finite = np.abs(wa[np.isfinite(wa)])
                scale = float(finite.max()) if finite.size else 0.0
                np.testing.assert_allclose(ga, wa, rtol=rtol, atol=atol * max(scale, 1.0), equal_nan=True,
                                           err_msg=where)


# --- elementwise ops: bit-exact, on inputs past the real grain and on strided ones -------------------

ELEMENTWISE = [op for op in POINTWISE if op.name in REGISTRY]


def _inputs(op, info, dtype, shape, rng):
    out = []
    for i in range(len(op.tensor_args)):
        dom = info.rhs_domain if (i == 1 and info.rhs_domain) else info.domain
        idom = info.rhs_int_domain if (i == 1 and info.rhs_int_domain) else info.int_domain
        out.append(random_array(dtype, shape, rng, dom, idom, nonzero=info.nonzero_rhs and i == 1))
    return out


@pytest.mark.parametrize("op", ELEMENTWISE, ids=[o.name for o in ELEMENTWISE])
def test_elementwise_op_is_bit_identical_on_1_2_3_threads(op):
    info, fn, rng = REGISTRY[op.name], op.function(ember), np.random.default_rng(3)
    for dtype in dtypes_under_test(op):
        for kwargs in info.kwargs:
            arrays = _inputs(op, info, dtype, (257, 389), rng)  # 99,973 elements: 3 pieces of the real grain
            results, split = at_each_thread_count(lambda: fn(*[to_ember(a, dtype) for a in arrays], **kwargs))
            assert split, f"{op.name}({dtype}) never ran on more than one thread"
            assert_same(results, True, f"{op.name}({dtype}, {kwargs})")
            results, _ = at_each_thread_count(lambda: fn(*[to_ember(a, dtype).t()[::3] for a in arrays], **kwargs))
            assert_same(results, True, f"{op.name}({dtype}, {kwargs}) on strided inputs")


# --- every other op: its OpInfo samples, and large ones where a kernel has its own threshold -----------

def _big_samples():
    rng = np.random.default_rng(5)
    r = lambda *shape: rng.uniform(-1, 1, shape)
    mat = lambda: Sample((r(96, 80), r(80, 72)))  # past blas' 64^3 multiply-adds
    return {
        "mm": [mat()],
        "matmul": [mat(), Sample((r(3, 70, 64), r(64, 66)))],
        "bmm": [Sample((r(3, 70, 64), r(3, 64, 66)))],
        "addmm": [Sample((r(96, 72), r(96, 80), r(80, 72)))],
        "mv": [Sample((r(4096, 300), r(300)))],
        "dot": [Sample((r(1 << 18), r(1 << 18)))],
        "vdot": [Sample((r(1 << 18), r(1 << 18)))],
        "sort": [Sample((r(1 << 17),)), Sample((r(3, 1 << 16),), {"dim": 1})],
        "argsort": [Sample((r(1 << 17),))],
        "msort": [Sample((r(1 << 16, 2),))],
        "topk": [Sample((r(1 << 17), 50))],
        "kthvalue": [Sample((r(1 << 17), 777))],
        "histc": [Sample((r(1 << 17),), {"bins": 37})],
        "bincount": [Sample((rng.integers(0, 300, 1 << 17),))],
        "cumsum": [Sample((r(1 << 17), 0))],
        "cumprod": [Sample((r(1 << 16) * 0.01 + 1, 0))],
    }


BIG_SAMPLES = _big_samples()
OTHER = STRUCTURED


def _call(op, fn, sample, dtype):
    args, kwargs = sample_args(sample, dtype)  # fresh tensors each call: in-place ops write into them
    return fn(*args, **kwargs) if fn else getattr(args[0], op.public_name)(*args[1:], **kwargs)


@pytest.mark.parametrize("op", OTHER, ids=[o.name for o in OTHER])
def test_op_gives_the_same_result_on_1_2_3_threads(op):
    info, rng = REGISTRY[op.name], np.random.default_rng(7)
    fn = op.function(ember) if "function" in op.variants else None
    exact = op.name in EXACT
    for dtype in op.dtypes:
        samples = list(info.sample_inputs(dtype, rng))
        if dtype in ("float32", "float64") or (dtype in op.dtypes and dtype == op.dtypes[0]):
            samples += BIG_SAMPLES.get(op.name, [])
        for i, sample in enumerate(samples):
            results, _ = at_each_thread_count(lambda: _call(op, fn, sample, dtype))
            assert_same(results, exact or dtype not in FLOATS + COMPLEX, f"{op.name}({dtype}) sample {i}")


# Non-elementwise ops whose float results must match bit for bit too: they move, pick or compare
# values, never adding one thread's partial result to another's.
EXACT = {"sort", "argsort", "msort", "topk", "kthvalue", "histc", "bincount", "cumsum", "cumprod"}


# --- ops the samples above do not reach: private ops through their public callers, random draws ---------

N = 100_003  # past every elementwise and random grain three times over


def _custom_calls():
    rng = np.random.default_rng(11)
    f32 = lambda *shape: ember.tensor(rng.uniform(-2, 2, shape).astype(np.float32))
    i64 = lambda *shape: ember.tensor(rng.integers(-5, 6, shape))
    x, xi, mask = f32(N), i64(N), ember.tensor(rng.random(N) < 0.5)
    sig, cplx = f32(300, 256), ember.complex(f32(300, 256), f32(300, 256))
    logp, target = f32(4096, 10).log_softmax(1), ember.tensor(rng.integers(0, 10, 4096))
    probs = ember.tensor(rng.random((64, 300)))
    divisor, rows = i64(N).clamp_min(1), i64(N // 4, 3) % 3
    small, w0, w1 = f32(8, 16, 16) * 0.1, f32(300, 300), f32(N)
    img, kernel = f32(4, 8, 24, 24), f32(8, 8, 3, 3) * 0.2
    F = ember.nn.functional

    def matrix_exp_backward():
        a = small.clone().requires_grad_()
        ember.linalg.matrix_exp(a).sum().backward()
        return a.grad

    def nll_backward():
        p = logp.clone().requires_grad_()
        F.nll_loss(p, target).backward()
        return p.grad

    def bce_backward():
        p = x.sigmoid().requires_grad_()
        F.binary_cross_entropy(p, mask.float(), weight=x.abs()).backward()
        return p.grad

    lstm, gru = ember.nn.LSTM(48, 64, num_layers=2), ember.nn.GRU(48, 64, bidirectional=True)
    seq = f32(35, 20, 48)

    def rnn_backward():
        inp = seq.clone().requires_grad_()
        lstm.zero_grad(), gru.zero_grad()  # each thread count's call starts from no gradient
        (lstm(inp)[0].sum() + gru(inp)[0].sum()).backward()
        return [inp.grad] + [p.grad for p in list(lstm.parameters()) + list(gru.parameters())]

    sp_idx = ember.tensor(np.stack([rng.integers(0, 300, 3000), rng.integers(0, 200, 3000)]))
    sp_vals, sp_dense, sp_weight = f32(3000), f32(200, 48), f32(300, 48)

    def sparse_mm_backward():  # _sparse_csr_mm forward and, for the dense gradient, over the transpose
        dense = sp_dense.clone().requires_grad_()
        adj = ember.sparse_coo_tensor(sp_idx, sp_vals, (300, 200), requires_grad=True)
        (ember.sparse.mm(adj, dense) * sp_weight).sum().backward()
        return [dense.grad, adj.grad._values()]  # adj's gradient is _sparse_csr_sddmm's

    def amp_unscale():
        grads = [x.clone(), x.to(ember.bfloat16), ember.where(mask, x, x / 0)]
        found = ember.zeros(())
        ember._amp_foreach_non_finite_check_and_unscale_(grads, found, ember.tensor(0.125))
        return grads + [found]

    def amp_update():
        scale, tracker = ember.tensor(4.0), ember.tensor(1, dtype=ember.int32)
        ember._amp_update_scale_(scale, tracker, ember.tensor(0.0), 2.0, 0.5, 2)
        return [scale, tracker]

    def sgd_steps():
        w = [w0.clone().requires_grad_(), w1.clone().requires_grad_()]
        opt = ember.optim.SGD(w, lr=0.1, momentum=0.9, weight_decay=1e-3, nesterov=True)
        for _ in range(2):
            for p in w:
                p.grad = p.detach() * 0.5 + 1
            opt.step()
        return [p.detach() for p in w]

    return {
        "_div_trunc": [(lambda: ember.div(xi, divisor, rounding_mode="trunc"), True),
                       (lambda: ember.div(x, x + 3, rounding_mode="trunc"), True)],
        "_fft_c2c": [(lambda: ember.fft.fft(cplx), False), (lambda: ember.fft.fft2(cplx, norm="ortho"), False)],
        "_fft_r2c": [(lambda: ember.fft.rfft(sig), False), (lambda: ember.fft.fft(sig), False)],
        "_fft_c2r": [(lambda: ember.fft.irfft(cplx), False), (lambda: ember.fft.hfft(cplx), False)],
        "_linalg_matrix_exp_backward": [(matrix_exp_backward, False)],
        "_nll_loss": [(lambda: F.nll_loss(logp, target), False),
                      (lambda: F.nll_loss(logp, target, reduction="none"), True)],
        "_nll_loss_backward": [(nll_backward, False)],
        "_binary_cross_entropy": [(lambda: F.binary_cross_entropy(x.sigmoid(), mask.float()), False),
                                  (lambda: F.binary_cross_entropy(x.sigmoid(), mask.float(), reduction="none"), True)],
        "_binary_cross_entropy_backward": [(bce_backward, True)],
        "_nonzero_tuple": [(lambda: ember.nonzero(mask, as_tuple=True), True)],
        "_to_copy": [(lambda: x.to(ember.float64), True), (lambda: xi.to(ember.int8), True)],
        "_unique2": [(lambda: ember.unique(xi, return_inverse=True, return_counts=True), True)],
        "_unique_consecutive": [(lambda: ember.unique_consecutive(xi, return_inverse=True, return_counts=True), True)],
        "_unique_dim": [(lambda: ember.unique(rows, dim=0, return_inverse=True), True)],
        "_view_dtype": [(lambda: x.view(ember.int32) + 0, True)],
        "_where_cond": [(lambda: ember.where(mask, x, -x), True)],
        "_sgd_update": [(sgd_steps, True)],
        "_sparse_csr_mm": [(sparse_mm_backward, True)],  # one thread sums each output row, in a fixed order
        "_sparse_csr_sddmm": [(sparse_mm_backward, True)],
        "_sparse_csr_transpose": [(sparse_mm_backward, True)],
        "_amp_foreach_non_finite_check_and_unscale": [(amp_unscale, True)],
        "_amp_update_scale": [(amp_update, True)],
        "_rnn_layer": [(lambda: lstm(seq)[0], False), (lambda: gru(seq)[0], False)],
        "_rnn_layer_backward": [(rnn_backward, False)],
        "allclose": [(lambda: ember.allclose(x, x + 1e-9), True)],
        "equal": [(lambda: ember.equal(x, x.clone()), True), (lambda: ember.equal(xi, xi + 1), True)],
        "copy": [(lambda: ember.empty(N, dtype=ember.float64).copy_(x), True)],
        # jit's fused convolution epilogue (conv + residual + relu): a 3x3 conv on 4 x 8 x 24 x 24
        "_conv_add_relu": [(lambda: ember._C._conv_add_relu(img, kernel, None, [1, 1], [1, 1], [1, 1], 1, img, True),
                            False)],
        # the convolution scripted F.conv2d calls, on unbatched input (4 x 24 x 24 of the same image)
        "_conv_nd": [(lambda: ember._C._conv_nd(img[0], kernel, None, [1], [1], [1], 1), False)],
        # antialiased resize: each thread filters whole rows/planes, so results are exact
        "_upsample_bilinear2d_aa": [(lambda: ember._C._nn._upsample_bilinear2d_aa(img, [9, 31], False), True),
                                 (lambda: ember._C._nn._upsample_bilinear2d_aa((img * 40).clamp(0, 255).to(ember.uint8),
                                                                           [17, 10], False), True),
                                 (lambda: ember._C._nn._upsample_bilinear2d_aa(
                                     img.contiguous(memory_format=ember.channels_last), [9, 31], True), True)],
        "_upsample_bilinear2d_aa_backward": [(lambda: ember._C._nn._upsample_bilinear2d_aa_backward(
            ember.ones(4, 8, 9, 31) * 0.5, [9, 31], list(img.shape), False), True)],
        # antialiased resize: each thread filters whole rows/planes, so results are exact
        "_upsample_bicubic2d_aa": [(lambda: ember._C._nn._upsample_bicubic2d_aa(img, [9, 31], False), True),
                                 (lambda: ember._C._nn._upsample_bicubic2d_aa((img * 40).clamp(0, 255).to(ember.uint8),
                                                                           [17, 10], False), True),
                                 (lambda: ember._C._nn._upsample_bicubic2d_aa(
                                     img.contiguous(memory_format=ember.channels_last), [9, 31], True), True)],
        "_upsample_bicubic2d_aa_backward": [(lambda: ember._C._nn._upsample_bicubic2d_aa_backward(
            ember.ones(4, 8, 9, 31) * 0.5, [9, 31], list(img.shape), False), True)],
        "_resize_": [(lambda: x.clone()._resize_([N // 2]), True), (lambda: x.clone()._resize_([N + 5])[:N], True)],
        # Random draws: the same seed on each thread count (at_each_thread_count) gives the same numbers.
        "rand": [(lambda: ember.rand(N), True)], "randn": [(lambda: ember.randn(N, dtype=ember.float64), True)],
        "rand_like": [(lambda: ember.rand_like(x), True)], "randn_like": [(lambda: ember.randn_like(x), True)],
        "_normal_size": [(lambda: ember.normal(1.0, 2.0, size=(N,)), True)],
        "normal": [(lambda: ember.normal(x, x.abs() + 0.1), True)],
        "_randint_high": [(lambda: ember.randint(1000, (N,)), True)],
        "randint": [(lambda: ember.randint(-7, 1000, (N,)), True)],
        "_randint_like_high": [(lambda: ember.randint_like(x, 50), True)],
        "randint_like": [(lambda: ember.randint_like(xi, -3, 50), True)],
        "randperm": [(lambda: ember.randperm(N), True)],
        "_random_to": [(lambda: ember.empty(N).random_(100), True)],
        "random_": [(lambda: ember.empty(N, dtype=ember.int64).random_(-5, 1000), True)],
        "uniform_": [(lambda: ember.empty(N).uniform_(-3, 4), True)],
        "normal_": [(lambda: ember.empty(N, dtype=ember.float64).normal_(1, 3), True)],
        "exponential_": [(lambda: ember.empty(N).exponential_(2.0), True)],
        "geometric_": [(lambda: ember.empty(N).geometric_(0.3), True)],
        "log_normal_": [(lambda: ember.empty(N).log_normal_(0.5, 0.5), True)],
        "cauchy_": [(lambda: ember.empty(N).cauchy_(0, 2), True)],
        "bernoulli_": [(lambda: ember.empty(N).bernoulli_(0.3), True),
                       (lambda: ember.empty(N).bernoulli_(x.sigmoid()), True)],
        "bernoulli": [(lambda: ember.bernoulli(x.sigmoid()), True)],
        "poisson": [(lambda: ember.poisson(x.abs() * 5), True)],
        "_standard_gamma": [(lambda: ember._standard_gamma(x.abs() * 3 + 0.05), True)],
        "_standard_gamma_grad": [(lambda: ember._standard_gamma_grad(x.abs() * 3 + 0.05, x.abs() + 0.01), True)],
        "binomial": [(lambda: ember.binomial((x.abs() * 20).floor(), x.sigmoid()), True)],
        "multinomial": [(lambda: ember.multinomial(probs, 200, replacement=True), True),
                        (lambda: ember.multinomial(probs, 100), True)],
    }


CUSTOM = _custom_calls()


@pytest.mark.parametrize("name", sorted(CUSTOM))
def test_private_and_random_ops_give_the_same_result_on_1_2_3_threads(name):
    for i, (call, exact) in enumerate(CUSTOM[name]):
        results, _ = at_each_thread_count(call)
        assert_same(results, exact, f"{name} call {i}")


def test_every_op_of_the_database_is_run_on_1_2_3_threads():
    run = {op.name for op in ELEMENTWISE} | {op.name for op in OTHER} | set(CUSTOM)
    missing = sorted(n for n in ALL_OPS if n not in run)
    assert not missing, f"ops not run on 1, 2 and 3 threads (give them samples here): {missing}"
