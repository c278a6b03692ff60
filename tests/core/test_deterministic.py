"""use_deterministic_algorithms (issue 20 item 4): PyTorch's API and messages (written out here), the
ops that raise, filled uninitialized memory (NumPy's dtype limits as reference), and the reductions
ember promises bitwise equal for any thread count, compared at 1, 2 and 3 threads with every
parallel loop split as finely as it goes."""
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F
import ember.utils.deterministic as det


@pytest.fixture(autouse=True)
def restore():
    yield
    ember.use_deterministic_algorithms(False)
    det.fill_uninitialized_memory = True


def test_modes_and_getters():
    assert not ember.are_deterministic_algorithms_enabled() and ember.get_deterministic_debug_mode() == 0
    ember.use_deterministic_algorithms(True, warn_only=True)
    assert ember.are_deterministic_algorithms_enabled() and ember.is_deterministic_algorithms_warn_only_enabled()
    assert ember.get_deterministic_debug_mode() == 1
    # PyTorch's table: value -> (debug mode, enabled, warn_only)
    for value, want in {0: (0, False, False), 1: (1, True, True), 2: (2, True, False), "default": (0, False, False),
                        "warn": (1, True, True), "error": (2, True, False)}.items():
        ember.set_deterministic_debug_mode(value)
        assert (ember.get_deterministic_debug_mode(), ember.are_deterministic_algorithms_enabled(),
                ember.is_deterministic_algorithms_warn_only_enabled()) == want, value


def test_bad_arguments_as_pytorch():
    with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 3"):
        ember.set_deterministic_debug_mode(3)
    with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`, but got x"):
        ember.set_deterministic_debug_mode("x")
    with pytest.raises(TypeError, match="debug_mode must be str or int"):
        ember.set_deterministic_debug_mode(1.5)
    with pytest.raises(TypeError, match="argument 'mode' \\(position 1\\) must be bool, not str"):
        ember.use_deterministic_algorithms("x")
    with pytest.raises(TypeError, match="argument 'mode' \\(position 1\\) must be bool, not int"):
        ember.use_deterministic_algorithms(1)
    with pytest.raises(TypeError, match="argument 'warn_only' must be bool, not str"):
        ember.use_deterministic_algorithms(True, warn_only="x")
    with pytest.raises(RuntimeError, match="expected a bool, but got int"):
        det.fill_uninitialized_memory = 1


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool_raises_or_warns_naming_itself(nd):
    x = ember.rand(*([1, 1] + [2] * nd))
    _, idx = getattr(F, f"max_pool{nd}d")(ember.rand(*([1, 1] + [4] * nd)), 2, return_indices=True)
    unpool = getattr(F, f"max_unpool{nd}d")
    unpool(x, idx, 2)  # off: runs
    ember.use_deterministic_algorithms(True)
    name = f"max_unpooling{max(nd, 2)}d_forward_out"
    with pytest.raises(RuntimeError, match=f"^{name} does not have a deterministic implementation"):
        unpool(x, idx, 2)
    ember.use_deterministic_algorithms(True, warn_only=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = unpool(x, idx, 2)
    assert out.shape == (1, 1) + (4,) * nd
    assert len(w) == 1 and w[0].category is UserWarning and str(w[0].message).startswith(name)


FILL = [(ember.float32, np.nan), (ember.float64, np.nan), (ember.float16, np.nan), (ember.bfloat16, np.nan),
        (ember.int8, np.iinfo(np.int8).max), (ember.uint8, np.iinfo(np.uint8).max),
        (ember.int16, np.iinfo(np.int16).max), (ember.int32, np.iinfo(np.int32).max),
        (ember.int64, np.iinfo(np.int64).max), (ember.bool, True)]


@pytest.mark.parametrize("dtype, want", FILL)
def test_uninitialized_memory_is_filled(dtype, want):
    ember.use_deterministic_algorithms(True)
    made = [ember.empty(3, dtype=dtype), ember.empty_like(ember.zeros(2, 2, dtype=dtype)),
            ember.empty_strided((2, 3), (1, 2), dtype=dtype), ember.zeros(1, dtype=dtype).new_empty(4)]
    for t in made:
        a = t.float().numpy() if dtype in (ember.float16, ember.bfloat16) else t.numpy()
        if isinstance(want, float) and np.isnan(want):
            assert np.isnan(a).all()
        else:
            assert (a == want).all(), (dtype, a)


def test_complex_fill_and_switching_fill_off():
    ember.use_deterministic_algorithms(True)
    c = ember.empty(2, dtype=ember.complex64).numpy()
    assert np.isnan(c.real).all() and (c.imag == 0).all()
    det.fill_uninitialized_memory = False
    assert det.fill_uninitialized_memory is False
    ember.use_deterministic_algorithms(False)
    det.fill_uninitialized_memory = True
    assert not np.isnan(ember.zeros(3).numpy()).any()  # off again: nothing is filled, zeros are zeros


def _at_thread_counts(fn):
    threads = ember.get_num_threads()
    cap = ember._C._set_parallel_grain_cap(1)
    try:
        out = []
        for n in (1, 2, 3):
            ember.set_num_threads(n)
            out.append(np.asarray(fn().numpy()).copy())
        return out
    finally:
        ember._C._set_parallel_grain_cap(cap)
        ember.set_num_threads(threads)


def _data():
    rng = np.random.default_rng(0)
    f = lambda *s: ember.from_numpy(rng.standard_normal(s).astype(np.float32))
    return f, f(1 << 18), f(257, 1031), ember.from_numpy(rng.integers(0, 64, 50000)), f(50000)


def test_listed_reductions_are_bitwise_equal_for_any_thread_count():
    f, x, m, idx, src = _data()
    w = f(64, 8)

    def emb_grad():
        ww = w.clone().requires_grad_()
        F.embedding(idx, ww).sum().backward()
        return ww.grad

    cases = {
        "sum": lambda: x.sum(), "mean": lambda: x.mean(), "var": lambda: x.var(), "norm": lambda: x.norm(),
        "sum(0)": lambda: m.sum(0), "sum(1)": lambda: m.sum(1), "logsumexp": lambda: m.logsumexp(1),
        "softmax": lambda: m.softmax(1), "cumsum": lambda: x.cumsum(0),
        "index_add_": lambda: ember.zeros(64).index_add_(0, idx, src),
        "scatter_add_": lambda: ember.zeros(64).scatter_add_(0, idx, src),
        "index_put_ accumulate": lambda: ember.zeros(64).index_put_((idx,), src, accumulate=True),
        "put_ accumulate": lambda: ember.zeros(64).put_(idx, src, accumulate=True),
        "bincount": lambda: ember.bincount(idx, weights=src), "histc": lambda: ember.histc(x, 50),
        "embedding backward": emb_grad,
    }
    for name, fn in cases.items():
        r = _at_thread_counts(fn)
        assert all(np.array_equal(r[0], other) for other in r[1:]), name


def test_thread_count_dependent_ops_repeat_at_one_thread_count():
    f, _, m, _, _ = _data()
    img, w = f(4, 8, 16, 16), f(8, 8, 3, 3)

    def conv_grad():
        ww = w.clone().requires_grad_()
        F.conv2d(img, ww, padding=1).square().sum().backward()
        return ww.grad

    for fn in (lambda: m @ m.t(), conv_grad):
        first = fn().numpy().copy()
        assert all(np.array_equal(first, fn().numpy()) for _ in range(5))
