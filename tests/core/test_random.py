"""Random numbers: the Generator API and the seeding functions, the Philox4x32-10 stream against a
NumPy implementation checked on Random123's published answers, reproducibility (same seed, state
round trips, fork_rng, any thread count, any output layout), the laws of every sampler against
SciPy (KS and chi-square tests at fixed seeds), and PyTorch's argument errors."""
import numpy as np
import pytest
import scipy.stats as st

import ember

# ----------------------------------------------------------------------------------------------
# A NumPy Philox4x32-10 (Salmon et al. 2011), checked against Random123's known answers below.

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
KAT = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
       ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
       ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]


def philox(ctr, key):
    """ctr: (n, 4) uint64 words < 2**32; key: two ints. Returns (n, 4) uint64 words."""
    c = [np.asarray(ctr, dtype=np.uint64)[:, i].copy() for i in range(4)]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    mask = np.uint64(0xFFFFFFFF)
    for _ in range(10):
        p0, p1 = np.uint64(M0) * c[0], np.uint64(M1) * c[2]
        hi0, lo0, hi1, lo1 = p0 >> np.uint64(32), p0 & mask, p1 >> np.uint64(32), p1 & mask
        c = [hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0]
        k0, k1 = (k0 + np.uint64(W0)) & mask, (k1 + np.uint64(W1)) & mask
    return np.stack(c, axis=1)


def stream_blocks(seed, first, n):
    """Blocks first..first+n-1 of the stream of a generator seeded with `seed` (counter = block index)."""
    b = np.arange(first, first + n, dtype=np.uint64)
    ctr = np.stack([b & np.uint64(0xFFFFFFFF), b >> np.uint64(32), np.zeros_like(b), np.zeros_like(b)], axis=1)
    return philox(ctr, (seed & 0xFFFFFFFF, seed >> 32))


def test_reference_philox_matches_random123_known_answers():
    for ctr, key, out in KAT:
        np.testing.assert_array_equal(philox(np.array([ctr]), key)[0], np.array(out, dtype=np.uint64))


@pytest.mark.parametrize("seed", [0, 1, 0xDEADBEEFCAFEF00D, 2**64 - 1])
@pytest.mark.parametrize("first,n", [(0, 1), (0, 37), (2**32 - 5, 19), (12345678901, 64)])
def test_generator_blocks_are_philox(seed, first, n):
    g = ember.Generator().manual_seed(seed)
    got = g._blocks(first, n).numpy().astype(np.uint64)
    np.testing.assert_array_equal(got, stream_blocks(seed, first, n))


def _words(seed, n_words, first_block=0):
    return stream_blocks(seed, first_block, (n_words + 3) // 4).reshape(-1)[:n_words]


def test_rand_float32_and_float64_are_the_documented_mapping():
    # float32: 24 high bits of one word; float64: 53 high bits of two words (low word first).
    g = ember.Generator().manual_seed(42)
    w = _words(42, 10)
    np.testing.assert_array_equal(
        ember.rand(10, generator=g).numpy(), (w >> np.uint64(8)).astype(np.float64) * 2.0**-24
    )
    w = _words(42, 20, first_block=3)  # the first call reserved blocks 0..2
    x = w[0::2] | (w[1::2] << np.uint64(32))
    np.testing.assert_array_equal(ember.rand(10, generator=g, dtype=ember.float64).numpy(),
                                  (x >> np.uint64(11)).astype(np.float64) * 2.0**-53)


# ----------------------------------------------------------------------------------------------
# The Generator object and the global functions.

def test_generator_api():
    g = ember.Generator()
    assert isinstance(g, ember.Generator) and g.device == ember.device("cpu")
    assert ember.Generator(device="cpu").device == ember.device("cpu")
    assert g.initial_seed() == 67280421310721  # PyTorch's default seed
    assert g.manual_seed(123) is g and g.initial_seed() == 123
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2**64 and g.initial_seed() == s
    assert g.manual_seed(-1).initial_seed() == 2**64 - 1  # negative seeds wrap as in PyTorch
    assert g.manual_seed(2**64 - 1).initial_seed() == 2**64 - 1
    state = g.get_state()
    assert state.dtype == ember.uint8 and state.dim() == 1 and state.numel() == 16


def test_default_generator_and_module_functions():
    assert isinstance(ember.default_generator, ember.Generator)
    assert ember.random.default_generator is ember.default_generator
    assert ember.manual_seed(7) is ember.default_generator
    assert ember.initial_seed() == 7 and ember.random.initial_seed() == 7
    a = ember.rand(5)
    ember.manual_seed(7)
    np.testing.assert_array_equal(ember.rand(5).numpy(), a.numpy())
    s = ember.seed()
    assert ember.initial_seed() == s
    assert ember.random.manual_seed(3.0) is ember.default_generator  # int(seed), as torch.manual_seed


def test_state_round_trip():
    g = ember.Generator().manual_seed(5)
    ember.randn(100, generator=g)
    state = g.get_state()
    a = ember.randn(50, generator=g).numpy()
    g.manual_seed(99)
    g.set_state(state)
    np.testing.assert_array_equal(ember.randn(50, generator=g).numpy(), a)
    # The global form, and the state of a fresh generator restoring another one's stream.
    ember.manual_seed(11)
    st_ = ember.get_rng_state()
    b = ember.rand(20).numpy()
    ember.set_rng_state(st_)
    np.testing.assert_array_equal(ember.rand(20).numpy(), b)
    h = ember.Generator().set_state(st_)
    np.testing.assert_array_equal(ember.rand(20, generator=h).numpy(), b)


def test_clone_state_is_independent():
    g = ember.Generator().manual_seed(8)
    ember.rand(3, generator=g)
    c = g.clone_state()
    a = ember.rand(10, generator=g).numpy()
    np.testing.assert_array_equal(ember.rand(10, generator=c).numpy(), a)
    assert c is not g


def test_fork_rng_restores():
    ember.manual_seed(21)
    before = ember.get_rng_state()
    with ember.random.fork_rng():
        ember.rand(100)
        ember.manual_seed(5)
    assert ember.get_rng_state().numpy().tobytes() == before.numpy().tobytes()
    with ember.random.fork_rng(devices=[]):
        ember.randn(3)
    assert ember.get_rng_state().numpy().tobytes() == before.numpy().tobytes()
    with ember.random.fork_rng(enabled=False):
        ember.rand(3)
    assert ember.get_rng_state().numpy().tobytes() != before.numpy().tobytes()
    with pytest.raises(ValueError, match="devices"):
        with ember.random.fork_rng(devices=[0]):
            pass
    # Restored also when the block raises.
    before = ember.get_rng_state()
    with pytest.raises(KeyError):
        with ember.random.fork_rng():
            ember.rand(10)
            raise KeyError
    assert ember.get_rng_state().numpy().tobytes() == before.numpy().tobytes()


def test_generator_errors():
    g = ember.Generator()
    with pytest.raises(RuntimeError, match="Overflow"):
        g.manual_seed(2**64)
    with pytest.raises(RuntimeError, match="Overflow"):
        g.manual_seed(-(2**63) - 1)
    with pytest.raises(TypeError, match="manual_seed expected a long"):
        g.manual_seed(1.5)
    with pytest.raises(ValueError, match="16 bytes, got 3"):
        g.set_state(ember.zeros(3, dtype=ember.uint8))
    with pytest.raises(TypeError, match="uint8"):
        g.set_state(ember.zeros(16))
    with pytest.raises(TypeError, match="uint8"):
        g.set_state(b"0123456789abcdef")
    with pytest.raises(RuntimeError, match="cuda"):
        ember.Generator("cuda")
    with pytest.raises(TypeError, match="generator"):
        ember.rand(3, generator=5)
    with pytest.raises(TypeError, match="generator"):
        ember.zeros(3).uniform_(generator="x")


# ----------------------------------------------------------------------------------------------
# Reproducibility: every sampler, by seed, thread count and output layout.

def _samplers():
    """name -> f(generator) giving an ember tensor; large enough to run in parallel pieces."""
    n = 150_000
    w = ember.rand(3, 50, generator=ember.Generator().manual_seed(1)) + 0.01
    rates = ember.rand(n, generator=ember.Generator().manual_seed(2)) * 30
    probs = ember.rand(n, generator=ember.Generator().manual_seed(3))
    return {
        "rand": lambda g: ember.rand(n, generator=g),
        "rand_f64": lambda g: ember.rand(n, generator=g, dtype=ember.float64),
        "rand_f16": lambda g: ember.rand(n, generator=g, dtype=ember.float16),
        "rand_c64": lambda g: ember.rand(n // 2, generator=g, dtype=ember.complex64),
        "randn": lambda g: ember.randn(n + 1, generator=g),
        "randn_f64": lambda g: ember.randn(n + 1, generator=g, dtype=ember.float64),
        "randn_bf16": lambda g: ember.randn(n, generator=g, dtype=ember.bfloat16),
        "randint": lambda g: ember.randint(-5, 1000, (n,), generator=g),
        "randint_i8": lambda g: ember.randint(100, (n,), generator=g, dtype=ember.int8),
        "randperm": lambda g: ember.randperm(n, generator=g),
        "bernoulli": lambda g: ember.bernoulli(probs, generator=g),
        "bernoulli_p": lambda g: ember.bernoulli(probs, 0.3, generator=g),
        "multinomial": lambda g: ember.multinomial(w, 5000, True, generator=g),
        "multinomial_norep": lambda g: ember.multinomial(w, 20, generator=g),
        "normal": lambda g: ember.normal(probs, probs, generator=g),
        "normal_size": lambda g: ember.normal(2.0, 3.0, (n,), generator=g),
        "poisson": lambda g: ember.poisson(rates, generator=g),
        "uniform_": lambda g: ember.empty(n).uniform_(-2, 5, generator=g),
        "normal_": lambda g: ember.empty(n, dtype=ember.float64).normal_(1, 2, generator=g),
        "random_": lambda g: ember.empty(n, dtype=ember.int32).random_(generator=g),
        "random_f32": lambda g: ember.empty(n).random_(-10, 10, generator=g),
        "exponential_": lambda g: ember.empty(n).exponential_(2.0, generator=g),
        "geometric_": lambda g: ember.empty(n, dtype=ember.int64).geometric_(0.2, generator=g),
        "log_normal_": lambda g: ember.empty(n).log_normal_(generator=g),
        "cauchy_": lambda g: ember.empty(n, dtype=ember.float16).cauchy_(generator=g),
        "bernoulli_": lambda g: ember.empty(n, dtype=ember.uint8).bernoulli_(0.25, generator=g),
        "bernoulli_t": lambda g: ember.empty(n, dtype=ember.bool).bernoulli_(probs, generator=g),
    }


SAMPLERS = _samplers()


def _np(t):
    if t.dtype in (ember.float16, ember.bfloat16):
        t = t.to(ember.float32)
    return t.numpy().copy()


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_seed_same_values_and_thread_count_free(name):
    f = SAMPLERS[name]
    old = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        a = _np(f(ember.Generator().manual_seed(1234)))
        ember.set_num_threads(2)
        b = _np(f(ember.Generator().manual_seed(1234)))
        ember.set_num_threads(3)
        c = _np(f(ember.Generator().manual_seed(1234)))
    finally:
        ember.set_num_threads(old)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    d = _np(f(ember.Generator().manual_seed(4321)))
    assert not np.array_equal(a, d), "different seeds gave the same values"
    g = ember.Generator().manual_seed(1234)
    f(g)
    assert not np.array_equal(a, _np(f(g))), "a second call repeated the first one's values"


def test_default_generator_used_when_none():
    ember.manual_seed(77)
    a = ember.randn(10).numpy()
    np.testing.assert_array_equal(ember.randn(10, generator=ember.Generator().manual_seed(77)).numpy(), a)


INPLACE = {
    "uniform_": lambda t, g: t.uniform_(-1, 3, generator=g),
    "normal_": lambda t, g: t.normal_(0.5, 2, generator=g),
    "random_": lambda t, g: t.random_(0, 1000, generator=g),
    "exponential_": lambda t, g: t.exponential_(generator=g),
    "geometric_": lambda t, g: t.geometric_(0.3, generator=g),
    "log_normal_": lambda t, g: t.log_normal_(0, 0.5, generator=g),
    "cauchy_": lambda t, g: t.cauchy_(generator=g),
    "bernoulli_": lambda t, g: t.bernoulli_(0.5, generator=g),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64"])
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_same_values_for_any_layout(name, dtype):
    dt = getattr(ember, dtype)
    if dtype == "complex64" and name not in ("uniform_", "normal_"):
        pytest.skip("only uniform_ and normal_ take complex tensors")
    f = INPLACE[name]
    contiguous = f(ember.empty(300, 401, dtype=dt), ember.Generator().manual_seed(9))
    transposed = ember.empty(401, 300, dtype=dt).t()
    f(transposed, ember.Generator().manual_seed(9))
    strided = ember.empty(300, 802, dtype=dt)[:, ::2]
    f(strided, ember.Generator().manual_seed(9))
    want = _np(contiguous) if dtype != "complex64" else contiguous.numpy()
    for t in (transposed, strided):
        got = _np(t) if dtype != "complex64" else t.numpy()
        np.testing.assert_array_equal(got, want)


def test_inplace_returns_self_and_refuses_overlap():
    t = ember.empty(4, 5)
    assert t.uniform_() is t and t.normal_() is t and t.random_(3) is t and t.bernoulli_() is t
    e = ember.zeros(1).expand(5)
    with pytest.raises(RuntimeError):
        e.uniform_()
    with pytest.raises(RuntimeError):
        e.normal_()


# ----------------------------------------------------------------------------------------------
# Laws (fixed seeds, so these are deterministic; thresholds leave room for any sound generator).

P_MIN = 1e-3


def _ks(x, dist):
    p = st.kstest(np.asarray(x, dtype=np.float64).ravel(), dist).pvalue
    assert p > P_MIN, f"KS p-value {p}"


def _chi2(counts, probs):
    counts = np.asarray(counts, dtype=np.float64)
    expected = np.asarray(probs, dtype=np.float64) * counts.sum()
    assert expected.min() >= 5, "bins too small for a chi-square test"
    p = st.chisquare(counts, expected).pvalue
    assert p > P_MIN, f"chi-square p-value {p}"


def g(seed=2024):
    return ember.Generator().manual_seed(seed)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rand_uniform(dtype):
    x = ember.rand(200_000, generator=g(), dtype=getattr(ember, dtype)).numpy()
    assert x.min() >= 0 and x.max() < 1
    _ks(x, st.uniform().cdf)


@pytest.mark.parametrize("dtype,bits", [("float16", 11), ("bfloat16", 8)])
def test_rand_reduced_floats_below_one(dtype, bits):
    x = _np(ember.rand(100_000, generator=g(), dtype=getattr(ember, dtype)))
    assert x.min() >= 0 and x.max() < 1
    levels = np.round(x * 2**bits).astype(np.int64)
    assert np.all(levels / 2**bits == x), "values are multiples of 2^-bits"
    _chi2(np.bincount(levels // 2**(bits - 4), minlength=16), np.full(16, 1 / 16))


def test_rand_complex_parts_uniform():
    z = ember.rand(100_000, generator=g(), dtype=ember.complex128).numpy()
    _ks(z.real, st.uniform().cdf)
    _ks(z.imag, st.uniform().cdf)
    assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 0.02


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_randn_normal(dtype):
    x = ember.randn(200_000, generator=g(), dtype=getattr(ember, dtype)).numpy()
    _ks(x, st.norm().cdf)
    # Adjacent elements (a Box-Muller pair) are uncorrelated.
    assert abs(np.corrcoef(x[0::2], x[1::2])[0, 1]) < 0.01


def test_randn_reduced_and_complex():
    for dt in (ember.float16, ember.bfloat16):
        x = _np(ember.randn(100_000, generator=g(), dtype=dt))
        assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02
    z = ember.randn(100_000, generator=g(), dtype=ember.complex64).numpy()
    _ks(z.real * np.sqrt(2), st.norm().cdf)
    _ks(z.imag * np.sqrt(2), st.norm().cdf)
    assert abs(np.mean(np.abs(z) ** 2) - 1) < 0.02  # E|z|^2 = 1


def test_uniform_and_normal_inplace_laws():
    x = ember.empty(100_000, dtype=ember.float64).uniform_(-3, 5, generator=g()).numpy()
    assert x.min() >= -3 and x.max() < 5
    _ks(x, st.uniform(loc=-3, scale=8).cdf)
    x = ember.empty(100_000).normal_(1.5, 0.25, generator=g()).numpy()
    _ks(x, st.norm(loc=1.5, scale=0.25).cdf)
    z = ember.empty(50_000, dtype=ember.complex128).normal_(0, 2, generator=g()).numpy()
    _ks(z.real, st.norm(scale=np.sqrt(2)).cdf)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_exponential(dtype):
    x = _np(ember.empty(100_000, dtype=getattr(ember, dtype)).exponential_(2.5, generator=g()))
    assert x.min() > 0
    if dtype == "float16":
        assert abs(x.mean() - 0.4) < 0.01
    else:
        _ks(x, st.expon(scale=1 / 2.5).cdf)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cauchy_and_log_normal(dtype):
    dt = getattr(ember, dtype)
    _ks(ember.empty(100_000, dtype=dt).cauchy_(-1, 0.5, generator=g()).numpy(), st.cauchy(loc=-1, scale=0.5).cdf)
    x = ember.empty(100_000, dtype=dt).log_normal_(0.3, 0.7, generator=g()).numpy()
    assert x.min() > 0
    _ks(x, st.lognorm(s=0.7, scale=np.exp(0.3)).cdf)


@pytest.mark.parametrize("dtype", ["int64", "int16", "float32", "float64"])
def test_geometric(dtype):
    p = 0.3
    x = _np(ember.empty(100_000, dtype=getattr(ember, dtype)).geometric_(p, generator=g())).astype(np.int64)
    assert x.min() >= 1
    k = np.arange(1, 16)
    counts = np.append(np.bincount(x, minlength=17)[1:16], (x >= 16).sum())
    probs = np.append(st.geom(p).pmf(k), st.geom(p).sf(15))
    _chi2(counts, probs)


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8", "float32", "float16", "bfloat16"])
def test_randint_uniform(dtype):
    x = _np(ember.randint(-3, 7, (100_000,), generator=g(), dtype=getattr(ember, dtype))) if dtype != "uint8" else \
        _np(ember.randint(3, 13, (100_000,), generator=g(), dtype=ember.uint8)).astype(np.int64) - 6
    x = x.astype(np.int64)
    assert x.min() == -3 and x.max() == 6
    _chi2(np.bincount(x + 3, minlength=10), np.full(10, 0.1))


def test_randint_forms_and_dtype():
    t = ember.randint(10, (3, 4), generator=g())
    assert t.dtype == ember.int64 and t.shape == (3, 4)
    assert ember.randint(2, 5, size=(6,)).shape == (6,)
    assert ember.randint(high=4, size=(2,)).shape == (2,)
    assert ember.randint(low=1, high=4, size=(2,), dtype=ember.int16).dtype == ember.int16
    like = ember.randint_like(ember.zeros(2, 3, dtype=ember.float16), 4, 9, generator=g())
    assert like.dtype == ember.float16 and like.shape == (2, 3)
    x = _np(like)
    assert x.min() >= 4 and x.max() < 9 and np.all(x == np.round(x))
    x = ember.randint_like(ember.zeros(1000, dtype=ember.int32), 3).numpy()
    assert x.dtype == np.int32 and set(np.unique(x)) == {0, 1, 2}
    out = ember.empty(0, dtype=ember.int32)
    assert ember.randint(0, 3, (5,), out=out) is out and out.shape == (5,)
    assert ember.randint(5, (3,), device="meta").is_meta


def test_randint_large_ranges():
    x = ember.randint(-(2**62), 2**62, (10_000,), generator=g()).numpy()
    assert x.min() < -(2**61) and x.max() > 2**61
    b = ember.randint(0, 2, (10_000,), generator=g(), dtype=ember.bool).numpy()
    assert b.dtype == np.bool_ and 0.45 < b.mean() < 0.55


RANDOM_FULL = {"bool": 1, "uint8": 255, "int8": 127, "int16": 32767, "int32": 2**31 - 1, "int64": 2**63 - 1,
               "float16": 2**11, "bfloat16": 2**8, "float32": 2**24, "float64": 2**53}


@pytest.mark.parametrize("dtype", sorted(RANDOM_FULL))
def test_random_full_range(dtype):
    hi = RANDOM_FULL[dtype]
    t = ember.empty(20_000, dtype=getattr(ember, dtype)).random_(generator=g())
    x = _np(t).astype(np.float64) if dtype not in ("int64",) else t.numpy()
    assert x.min() >= 0 and x.max() <= hi
    assert x.max() >= hi * 0.9 and x.min() <= hi * 0.1  # spans the range
    if dtype in ("uint8", "int8", "float16", "bfloat16", "bool"):
        nb = 2 if dtype == "bool" else 16
        bins = lambda v: (np.asarray(v, dtype=np.int64) * nb) // (hi + 1)
        _chi2(np.bincount(bins(x), minlength=nb), np.bincount(bins(np.arange(hi + 1)), minlength=nb) / (hi + 1))


def test_random_from_to_and_to():
    x = ember.empty(50_000, dtype=ember.int16).random_(-4, 4, generator=g()).numpy()
    _chi2(np.bincount(x + 4, minlength=8), np.full(8, 1 / 8))
    x = ember.empty(50_000, dtype=ember.float64).random_(6, generator=g()).numpy()
    assert set(np.unique(x)) == set(range(6))
    x = ember.empty(1000, dtype=ember.int8).random_(-128, None, generator=g()).numpy()  # [from, max]
    assert x.min() < -100 and x.max() > 100
    x = ember.empty(1000, dtype=ember.int64).random_(-(2**63), None, generator=g()).numpy()  # every int64
    assert x.min() < -(2**62) and x.max() > 2**62
    # Floating dtypes: to is moved left so that no value rounds up to it (PyTorch's rule).
    x = _np(ember.empty(20_000, dtype=ember.float16).random_(0, 65504, generator=g()))
    assert x.max() < 65504


def test_randperm():
    for n in (0, 1, 7, 1000, 100_003):
        p = ember.randperm(n, generator=g(n))
        assert p.dtype == ember.int64 and p.shape == (n,)
        np.testing.assert_array_equal(np.sort(p.numpy()), np.arange(n))
    p = ember.randperm(300, dtype=ember.float16, generator=g())
    np.testing.assert_array_equal(np.sort(_np(p)), np.arange(300))
    p = ember.randperm(256, dtype=ember.uint8)
    np.testing.assert_array_equal(np.sort(p.numpy()), np.arange(256))
    out = ember.empty(2, dtype=ember.int32)
    assert ember.randperm(10, out=out) is out and np.array_equal(np.sort(out.numpy()), np.arange(10))
    # Uniform over the 24 permutations of 4.
    gen = g()
    seen = [tuple(ember.randperm(4, generator=gen).numpy()) for _ in range(4800)]
    perms = sorted(set(seen))
    assert len(perms) == 24
    _chi2([seen.count(q) for q in perms], np.full(24, 1 / 24))


def test_bernoulli():
    p = np.linspace(0, 1, 11)
    probs = ember.tensor(np.tile(p, (20_000, 1)))
    x = ember.bernoulli(probs, generator=g()).numpy()
    assert x.dtype == np.float64 and set(np.unique(x)) <= {0.0, 1.0}
    assert np.all(x[:, 0] == 0) and np.all(x[:, -1] == 1)
    np.testing.assert_allclose(x.mean(axis=0), p, atol=0.012)
    y = ember.bernoulli(ember.zeros(100_000, dtype=ember.float32), 0.3, generator=g()).numpy()
    assert abs(y.mean() - 0.3) < 0.005
    assert probs.bernoulli(generator=g()).shape == probs.shape
    t = ember.empty(3, 100_000, dtype=ember.int64).bernoulli_(ember.tensor([[0.1], [0.5], [0.9]]), generator=g())
    np.testing.assert_allclose(t.numpy().mean(axis=1), [0.1, 0.5, 0.9], atol=0.006)
    b = ember.empty(100_000, dtype=ember.bool).bernoulli_(generator=g()).numpy()
    assert abs(b.mean() - 0.5) < 0.006
    out = ember.empty(0, dtype=ember.float32)
    assert ember.bernoulli(ember.full((4,), 1.0), out=out) is out and np.all(out.numpy() == 1)


def test_poisson():
    for lam in (0.0, 0.5, 3.0, 9.9, 10.0, 45.0, 2500.0):
        x = ember.poisson(ember.full((40_000,), lam, dtype=ember.float64), generator=g()).numpy()
        assert x.min() >= 0 and np.all(x == np.round(x))
        if lam == 0:
            assert np.all(x == 0)
            continue
        # Mean within 4 standard errors, and a chi-square over central bins for the moderate rates.
        assert abs(x.mean() - lam) < 4 * np.sqrt(lam / x.size)
        if lam <= 45:
            d = st.poisson(lam)
            lo, hi = int(d.ppf(0.01)), int(d.ppf(0.99))
            ks = np.arange(lo + 1, hi)  # bins: <= lo, each k strictly between, >= hi
            counts = np.array([(x <= lo).sum()] + [(x == k).sum() for k in ks] + [(x >= hi).sum()])
            _chi2(counts, np.concatenate([[d.cdf(lo)], d.pmf(ks), [d.sf(hi - 1)]]))
    r = ember.poisson(ember.tensor([[1.0, 100.0]], dtype=ember.float32), generator=g())
    assert r.dtype == ember.float32 and r.shape == (1, 2)


def test_multinomial_with_replacement():
    w = np.array([0.0, 1.0, 2.0, 0.0, 4.0, 3.0])
    x = ember.multinomial(ember.tensor(w), 60_000, replacement=True, generator=g()).numpy()
    assert x.dtype == np.int64 and x.shape == (60_000,)
    counts = np.bincount(x, minlength=6)
    assert counts[0] == 0 and counts[3] == 0
    _chi2(counts[[1, 2, 4, 5]], w[[1, 2, 4, 5]] / w.sum())
    rows = ember.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 5.0]])
    np.testing.assert_array_equal(ember.multinomial(rows, 4, True).numpy(), [[0] * 4, [2] * 4])


def test_multinomial_without_replacement_is_exact():
    # P(first = i, second = j) = w_i / S * w_j / (S - w_i): the law of drawing one at a time.
    w = np.array([1.0, 2.0, 3.0, 4.0])
    n = 40_000
    x = ember.multinomial(ember.tensor(np.tile(w, (n, 1))), 2, generator=g()).numpy()
    assert x.shape == (n, 2) and np.all(x[:, 0] != x[:, 1])
    S = w.sum()
    pairs = [(i, j) for i in range(4) for j in range(4) if i != j]
    probs = [w[i] / S * w[j] / (S - w[i]) for i, j in pairs]
    counts = [np.sum((x[:, 0] == i) & (x[:, 1] == j)) for i, j in pairs]
    _chi2(counts, probs)
    # All categories without replacement: a permutation; zero weights only once all others are out.
    x = ember.multinomial(ember.tensor([0.0, 1.0, 1.0, 0.0, 1.0]), 3, generator=g()).numpy()
    assert sorted(x) == [1, 2, 4]
    x = ember.multinomial(ember.rand(5, 30, generator=g()), 30, generator=g()).numpy()
    assert all(sorted(r) == list(range(30)) for r in x)


def test_normal_overloads():
    mean = ember.tensor([[0.0, 10.0, -10.0]] * 40_000)
    x = ember.normal(mean, 2.0, generator=g()).numpy()
    assert x.shape == (40_000, 3) and x.dtype == np.float32
    _ks((x - mean.numpy()).ravel() / 2.0, st.norm().cdf)
    std = ember.tensor([0.5, 1.0, 2.0], dtype=ember.float64)
    x = ember.normal(1.0, std.expand(40_000, 3), generator=g()).numpy()
    assert x.dtype == np.float64
    _ks(((x - 1.0) / std.numpy()).ravel(), st.norm().cdf)
    x = ember.normal(mean, std, generator=g()).numpy()  # broadcast; mean's dtype
    assert x.dtype == np.float32 and x.shape == (40_000, 3)
    x = ember.normal(-1.0, 3.0, (100_000,), generator=g(), dtype=ember.float64).numpy()
    _ks(x, st.norm(loc=-1, scale=3).cdf)
    assert ember.normal(0.0, 1.0, size=(2, 3)).shape == (2, 3)
    assert ember.normal(0.0, 1.0, (2,), dtype=ember.complex64).dtype == ember.complex64
    out = ember.empty(0, dtype=ember.float64)
    assert ember.normal(ember.zeros(3), ember.ones(3), out=out) is out and out.shape == (3,)
    assert ember.normal(0.0, 1.0, (4,), out=out) is out and out.shape == (4,)
    assert ember.normal(ember.zeros(2, device="meta"), 1.0).is_meta


def test_like_and_meta_and_out():
    t = ember.zeros(3, 4, dtype=ember.float64).t()
    for f in (ember.rand_like, ember.randn_like):
        r = f(t, generator=g())
        assert r.shape == (4, 3) and r.dtype == ember.float64 and r.stride() == t.stride()
        assert f(t, dtype=ember.float16).dtype == ember.float16
    for f in (ember.rand, ember.randn):
        assert f(2, 3, device="meta").is_meta and f((2, 3)).shape == (2, 3) and f(2, 3).dtype == ember.float32
        out = ember.empty(0)
        assert f(5, out=out) is out and out.shape == (5,)
    m = ember.empty(2, 3, device="meta")
    assert m.uniform_() is m and m.normal_().is_meta and m.random_(5).is_meta
    assert ember.rand(0).shape == (0,) and ember.empty(0).exponential_().shape == (0,)


# ----------------------------------------------------------------------------------------------
# PyTorch's argument errors.

def test_bad_arguments():
    f = ember.zeros(3)
    cases = [
        (RuntimeError, "random_ expects 'from' to be less than 'to', but got from=3 >= to=1", lambda: f.random_(3, 1)),
        (
            RuntimeError,
            "random_ expects 'from' to be less than 'to', but got from=3 >= to=1",
            lambda: ember.randint(3, 1, (2,)),
        ),
        (RuntimeError, "from=0 >= to=0", lambda: ember.randint(0, (2,))),
        (RuntimeError, "out of bounds for int8", lambda: ember.zeros(2, dtype=ember.int8).random_(0, 200)),
        (RuntimeError, "out of bounds for uint8", lambda: ember.zeros(2, dtype=ember.uint8).random_(-1, 5)),
        (RuntimeError, "out of bounds for bool", lambda: ember.zeros(2, dtype=ember.bool).random_(0, 3)),
        (RuntimeError, "normal expects std >= 0.0, but found std -1", lambda: f.normal_(0, -1)),
        (RuntimeError, "normal expects std >= 0.0", lambda: ember.normal(0.0, -1.0, (3,))),
        (RuntimeError, "normal expects std >= 0.0", lambda: ember.normal(f, -1.0)),
        (
            RuntimeError,
            "normal expects all elements of std >= 0.0",
            lambda: ember.normal(f, ember.tensor([1.0, -1.0, 1.0])),
        ),
        (TypeError, "size is required", lambda: ember.normal(0.0, 1.0)),
        (TypeError, "normal", lambda: ember.normal(ember.zeros(3, dtype=ember.int64), 1.0)),
        (
            RuntimeError,
            "uniform_ expects to return a \\[from, to\\) range, but found from=2 > to=1",
            lambda: f.uniform_(2, 1),
        ),
        (RuntimeError, "out of bounds for float16", lambda: ember.zeros(2, dtype=ember.float16).uniform_(0, 1e6)),
        (RuntimeError, "bernoulli_ expects p to be in \\[0, 1\\], but got p=1.5", lambda: f.bernoulli_(1.5)),
        (RuntimeError, "bernoulli_ expects p to be in \\[0, 1\\]", lambda: ember.bernoulli(f, -0.5)),
        (RuntimeError, "in \\[0, 1\\]", lambda: ember.bernoulli(ember.tensor([0.5, 2.0]))),
        (RuntimeError, "in \\[0, 1\\]", lambda: f.bernoulli_(ember.tensor([0.5, float("nan"), 0.1]))),
        (TypeError, "bernoulli", lambda: ember.bernoulli(ember.tensor([0, 1]))),
        (RuntimeError, "exponential_ expects lambda > 0.0, but found lambda=0", lambda: f.exponential_(0)),
        (RuntimeError, "geometric_ expects p to be in \\(0, 1\\), but got p=1", lambda: f.geometric_(1)),
        (RuntimeError, "geometric_ expects p to be in \\(0, 1\\), but got p=0", lambda: f.geometric_(0)),
        (RuntimeError, "log_normal_ expects std > 0.0, but found std=0", lambda: f.log_normal_(1, 0)),
        (RuntimeError, "cauchy_ expects sigma > 0.0, but found sigma=-1", lambda: f.cauchy_(0, -1)),
        (
            TypeError,
            '"exponential_" is not implemented for dtype int64',
            lambda: ember.zeros(2, dtype=ember.int64).exponential_(),
        ),
        (
            TypeError,
            '"cauchy_" is not implemented for dtype int32',
            lambda: ember.zeros(2, dtype=ember.int32).cauchy_(),
        ),
        (
            TypeError,
            '"geometric_" is not implemented for dtype bool',
            lambda: ember.zeros(2, dtype=ember.bool).geometric_(0.5),
        ),
        (TypeError, '"rand" is not implemented for dtype int64', lambda: ember.rand(3, dtype=ember.int64)),
        (TypeError, '"randn" is not implemented for dtype bool', lambda: ember.randn(3, dtype=ember.bool)),
        (
            TypeError,
            '"uniform_" is not implemented for dtype int32',
            lambda: ember.zeros(2, dtype=ember.int32).uniform_(),
        ),
        (
            TypeError,
            '"random_" is not implemented for dtype complex64',
            lambda: ember.zeros(2, dtype=ember.complex64).random_(),
        ),
        (
            TypeError,
            '"poisson" is not implemented for dtype int64',
            lambda: ember.poisson(ember.zeros(2, dtype=ember.int64)),
        ),
        (RuntimeError, "poisson expects finite, non-negative rates", lambda: ember.poisson(ember.tensor([1.0, -2.0]))),
        (
            RuntimeError,
            "poisson expects finite, non-negative rates",
            lambda: ember.poisson(ember.tensor([float("inf")])),
        ),
        (RuntimeError, "prob_dist must be 1 or 2 dim", lambda: ember.multinomial(ember.ones(2, 2, 2), 1)),
        (RuntimeError, "only supports floating-point dtypes", lambda: ember.multinomial(ember.tensor([1, 2]), 1)),
        (RuntimeError, "cannot sample n_sample <= 0 samples", lambda: ember.multinomial(ember.ones(3), 0)),
        (
            RuntimeError,
            "cannot sample n_sample > prob_dist.size\\(-1\\) samples without replacement",
            lambda: ember.multinomial(ember.ones(3), 4),
        ),
        (
            RuntimeError,
            "not enough non-negative category to sample",
            lambda: ember.multinomial(ember.tensor([1.0, 0.0, 0.0]), 2),
        ),
        (RuntimeError, "`inf`, `nan` or element < 0", lambda: ember.multinomial(ember.tensor([1.0, -1.0]), 1)),
        (
            RuntimeError,
            "`inf`, `nan` or element < 0",
            lambda: ember.multinomial(ember.tensor([1.0, float("nan")]), 1, True),
        ),
        (
            RuntimeError,
            "sum of probabilities <= 0",
            lambda: ember.multinomial(ember.tensor([[1.0, 1.0], [0.0, 0.0]]), 1),
        ),
        (RuntimeError, "expects an int64 out", lambda: ember.multinomial(ember.ones(3), 1, out=ember.empty(1))),
        (RuntimeError, "n must be non-negative", lambda: ember.randperm(-1)),
        (RuntimeError, "too large for result tensor type: 'uint8'", lambda: ember.randperm(257, dtype=ember.uint8)),
        (
            RuntimeError,
            "n cannot be greater than 2\\^11\\+1 for float16",
            lambda: ember.randperm(2050, dtype=ember.float16),
        ),
        (TypeError, '"randperm" is not implemented for dtype bool', lambda: ember.randperm(2, dtype=ember.bool)),
        (RuntimeError, "floating point and complex", lambda: ember.randint(0, 3, (2,), requires_grad=True)),
        (RuntimeError, "dtype", lambda: ember.rand(2, dtype=ember.float64, out=ember.empty(2))),
    ]
    for exc, msg, fn in cases:
        with pytest.raises(exc, match=msg):
            fn()


def test_errors_leave_the_stream_untouched():
    gen = g(5)
    with pytest.raises(RuntimeError):
        ember.zeros(4).normal_(0, -1, generator=gen)
    with pytest.raises(RuntimeError):
        ember.multinomial(ember.tensor([1.0, -1.0]), 1, generator=gen)
    assert gen._get_offset() == 0


def test_generator_capsule_round_trip():
    # How an extension module (embercsprng) hands its C++ generator to Python and back.
    g = ember.Generator().manual_seed(3)
    cap = g._impl_capsule()
    h = ember._C._generator_from_capsule(cap)
    del cap
    assert h is not g and h.initial_seed() == 3
    ember.rand(5, generator=h)
    assert g._get_offset() == h._get_offset() == 2  # one stream, shared
    del g
    assert ember.rand(3, generator=h).shape == (3,)
    with pytest.raises(TypeError, match="ember.GeneratorImpl"):
        ember._C._generator_from_capsule(5)


def test_bernoulli_inplace_reads_probabilities_that_overlap_its_output_as_they_were():
    # p and x share storage, shifted by one: the probabilities are read as they were before the
    # call (0 then ones), not as bernoulli_ has already overwritten them.
    base = ember.tensor(np.r_[0.0, np.ones(200000)])
    x, p = base[1:], base[:-1]
    x.bernoulli_(p)
    assert x[0].item() == 0.0 and x[1:].sum().item() == 199999.0
