"""The csprng generators in ember's random ops: the stream is AES-128-CTR (checked against the
`cryptography` package), results do not depend on layout or thread count, state save/restore and
clone replay it, and the draws pass Kolmogorov-Smirnov and chi-square tests (SciPy)."""
import numpy as np
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from scipy import stats

import ember
import embercsprng as csprng

KEY = bytes(range(16))


def keystream(key, first_block, n_blocks):
    enc = Cipher(algorithms.AES(key), modes.CTR(first_block.to_bytes(16, "big"))).encryptor()
    return enc.update(bytes(16 * n_blocks))


@pytest.mark.parametrize("backend", ["portable", "best"])
def test_stream_is_aes_ctr(backend):
    g = csprng.create_const_generator(KEY)
    ctx = csprng.use_aes_backend("portable") if backend == "portable" else csprng.use_aes_backend(csprng.aes_backend())
    with ctx:
        got = ember.ops.csprng._keystream(g, 5, 40).numpy().tobytes()
    assert got == keystream(KEY, 5, 40)
    # mt19937: keyed from the seed; its stream is AES-CTR under that key too, so it is not the const one
    m = ember.ops.csprng._keystream(csprng.create_mt19937_generator(7), 0, 4).numpy().tobytes()
    assert m != keystream(KEY, 0, 4) and len(m) == 64


SAMPLERS = {
    "uniform_": lambda t, g: t.uniform_(-2, 3, generator=g),
    "normal_": lambda t, g: t.normal_(1, 2, generator=g),
    "cauchy_": lambda t, g: t.cauchy_(generator=g),
    "log_normal_": lambda t, g: t.log_normal_(generator=g),
    "exponential_": lambda t, g: t.exponential_(3.0, generator=g),
    "geometric_": lambda t, g: t.geometric_(0.3, generator=g),
    "bernoulli_": lambda t, g: t.bernoulli_(0.4, generator=g),
    "random_": lambda t, g: t.random_(0, 1000, generator=g),
}


@pytest.mark.parametrize(
    "make",
    [lambda: csprng.create_const_generator(KEY), lambda: csprng.create_mt19937_generator(3)],
    ids=["const", "mt19937"],
)
@pytest.mark.parametrize("name", SAMPLERS)
def test_layout_and_thread_count_do_not_change_results(name, make):
    fill = SAMPLERS[name]
    results = []
    threads = ember.get_num_threads()
    try:
        for n in (1, 2):
            ember.set_num_threads(n)
            outs = [ember.empty(96, 80, dtype=ember.float64),      # contiguous
                    ember.empty(80, 96, dtype=ember.float64).t(),  # a transposed view
                    ember.empty(192, 240, dtype=ember.float64)[::2, 1::3]]  # a strided slice
            for o in outs:
                fill(o, make())
                results.append(o.numpy().copy())
    finally:
        ember.set_num_threads(threads)
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


def test_factories_with_generator():
    for fn in (lambda g: ember.rand(50, generator=g), lambda g: ember.randn(50, generator=g),
               lambda g: ember.randint(0, 9, (50,), generator=g), lambda g: ember.randperm(50, generator=g)):
        a, b = fn(csprng.create_mt19937_generator(11)), fn(csprng.create_mt19937_generator(11))
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert not np.array_equal(a.numpy(), fn(csprng.create_mt19937_generator(12)).numpy())
    assert sorted(ember.randperm(50, generator=csprng.create_const_generator(KEY)).tolist()) == list(range(50))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_float_dtypes(dtype):
    t = ember.empty(1000, dtype=getattr(ember, dtype)).uniform_(generator=csprng.create_const_generator(KEY))
    v = t.float().numpy()
    assert v.min() >= 0 and v.max() <= 1 and len(np.unique(v)) > 50


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "bool"])
def test_random_on_integer_dtypes(dtype):
    t = ember.empty(5000, dtype=getattr(ember, dtype)).random_(generator=csprng.create_const_generator(KEY))
    v = t.numpy()
    if dtype == "bool":
        assert set(np.unique(v)) == {False, True}
    else:
        info = np.iinfo(dtype)
        assert v.min() >= 0 and v.max() <= info.max and len(np.unique(v)) > min(100, info.max // 2)


def test_state_save_restore_and_clone():
    g = csprng.create_mt19937_generator(5)
    ember.rand(10, generator=g)
    state = g.get_state()
    a = ember.rand(20, generator=g)
    g2 = g.clone() if hasattr(g, "clone") else None
    g.set_state(state)
    np.testing.assert_array_equal(ember.rand(20, generator=g).numpy(), a.numpy())
    if g2 is not None:
        np.testing.assert_array_equal(ember.rand(7, generator=g2).numpy(), ember.rand(7, generator=g).numpy())
    assert g.initial_seed() == 5
    g.manual_seed(9)
    np.testing.assert_array_equal(ember.rand(5, generator=g).numpy(),
                                  ember.rand(5, generator=csprng.create_mt19937_generator(9)).numpy())


def test_random_device_is_not_replayable():
    g = csprng.create_random_device_generator()
    state = g.get_state()
    a = ember.rand(1000, generator=g)
    g.set_state(state)
    b = ember.rand(1000, generator=g)
    assert not np.array_equal(a.numpy(), b.numpy())  # each call has its own key from the OS
    u = ember.rand(1000, generator=csprng.create_random_device_generator("/dev/urandom")).numpy()
    assert 0.4 < u.mean() < 0.6
    with pytest.raises(ValueError, match="no random device '/nonexistent'"):
        csprng.create_random_device_generator("/nonexistent")


def test_const_key_errors():
    with pytest.raises(ValueError, match="16 bytes, got 8"):
        csprng.create_const_generator(bytes(8))
    with pytest.raises(ValueError, match=r"in \[0, 2\*\*128\)"):
        csprng.create_const_generator(2 ** 128)
    assert csprng.aes128_key_tensor(1).tolist() == [0] * 15 + [1]
    assert csprng.aes128_key_tensor().numel() == 16


N = 200_000


def draw(fill, dtype=ember.float64):
    t = ember.empty(N, dtype=dtype)
    fill(t, csprng.create_mt19937_generator(2024))
    return t.numpy().astype(np.float64)


@pytest.mark.parametrize("name,fill,cdf", [
    ("uniform", lambda t, g: t.uniform_(-1, 2, generator=g), stats.uniform(-1, 3).cdf),
    ("normal", lambda t, g: t.normal_(0.5, 2, generator=g), stats.norm(0.5, 2).cdf),
    ("exponential", lambda t, g: t.exponential_(2.5, generator=g), stats.expon(scale=1 / 2.5).cdf),
    ("cauchy", lambda t, g: t.cauchy_(1, 0.5, generator=g), stats.cauchy(1, 0.5).cdf),
    ("log_normal", lambda t, g: t.log_normal_(0.2, 0.7, generator=g), stats.lognorm(0.7, scale=np.exp(0.2)).cdf),
])
def test_kolmogorov_smirnov(name, fill, cdf):
    assert stats.kstest(draw(fill), cdf).pvalue > 1e-3, name
    assert stats.kstest(draw(fill, ember.float32), cdf).pvalue > 1e-3, name + " float32"


def test_kolmogorov_smirnov_geometric():
    """A discrete law through the randomized probability integral transform: with V uniform (NumPy's
    generator), F(X - 1) + V (F(X) - F(X - 1)) is uniform exactly when X follows F."""
    x = draw(lambda t, g: t.geometric_(0.3, generator=g))
    v = np.random.default_rng(0).random(x.shape)
    law = stats.geom(0.3)
    u = law.cdf(x - 1) + v * (law.cdf(x) - law.cdf(x - 1))
    assert stats.kstest(u, "uniform").pvalue > 1e-3


def chi_square_uniform(values, k):
    counts = np.bincount(values.astype(np.int64), minlength=k)
    return stats.chisquare(counts).pvalue


def test_chi_square():
    assert chi_square_uniform(draw(lambda t, g: t.random_(0, 37, generator=g), ember.int64), 37) > 1e-3
    r = ember.randint(0, 1000, (N,), generator=csprng.create_mt19937_generator(1)).numpy()
    assert chi_square_uniform(r, 1000) > 1e-3
    full = ember.empty(N, dtype=ember.int32).random_(generator=csprng.create_mt19937_generator(1)).numpy()
    assert chi_square_uniform(full >> 24, 128) > 1e-3  # the top bits of the full-range form
    p = 0.3
    geo = draw(lambda t, g: t.geometric_(p, generator=g)).astype(np.int64)
    ks = np.arange(1, 16)
    observed = np.array([np.sum(geo == k) for k in ks] + [np.sum(geo >= 16)])
    expected = np.append(N * (1 - p) ** (ks - 1) * p, N * (1 - p) ** 15)
    assert stats.chisquare(observed, expected).pvalue > 1e-3
