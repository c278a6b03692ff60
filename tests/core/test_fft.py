"""ember.fft against numpy.fft / scipy.fft: every public function's OpInfo (tests/opdb/entries/fft.py)
per dtype, on contiguous, non-contiguous and empty-batch inputs, with out=, gradcheck, gradgradcheck
and forward mode; plus result dtypes, the errors, meta inputs and threading."""
import numpy as np
import pytest

import ember
import ember.fft as efft
from ember.autograd import forward_ad, gradcheck, gradgradcheck
from opdb.entries.fft import PUBLIC
from ember.testing.opinfo import assert_matches_reference, to_ember, to_numpy

BY_NAME = {info.name: info for info in PUBLIC}
VALUE_PARAMS = [(i.name, d) for i in PUBLIC for d in i.extra["dtypes"]]
GRAD_PARAMS = [(i.name, d) for i in PUBLIC if i.extra["grad"]
               for d in i.extra["dtypes"] if d in ("float64", "complex128")]
TENSOR_FNS = [i.name for i in PUBLIC if i.extra["grad"]]


def _ember_args(sample, dtype):
    return [to_ember(a, dtype) if isinstance(a, np.ndarray) else a for a in sample.args]


def _wide(a):
    """The reference's input: float64 / complex128 (integers as the float they become)."""
    if isinstance(a, np.ndarray):
        return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    return a


def _check(name, got, sample, dtype, msg=""):
    info = BY_NAME[name]
    want = np.asarray(info.ref(*[_wide(a) for a in sample.args], **sample.kwargs))
    g = to_numpy(got)
    assert g.shape == want.shape, f"{name} {sample.kwargs}{msg}: shape {g.shape} != {want.shape}"
    tol_dtype = {"int64": "float32"}.get(dtype, dtype)  # integers are computed in the default float32
    if tol_dtype in ("float32", "float64") and g.dtype.kind == "c":
        tol_dtype = {"float32": "complex64", "float64": "complex128"}[tol_dtype]
    assert_matches_reference(g, want, tol_dtype, info.tol, msg=f"{name} {sample.kwargs}{msg}")


@pytest.mark.parametrize("name,dtype", VALUE_PARAMS, ids=[f"{n}-{d}" for n, d in VALUE_PARAMS])
def test_against_reference(name, dtype):
    fn = getattr(efft, name)
    for sample in BY_NAME[name].sample_inputs(dtype, np.random.default_rng(0)):
        args = _ember_args(sample, dtype)
        if name.endswith("freq"):
            sample.kwargs["dtype"] = getattr(ember, dtype)
            got = fn(*args, **sample.kwargs)
            del sample.kwargs["dtype"]
            assert got.dtype == getattr(ember, dtype)
        else:
            got = fn(*args, **sample.kwargs)
        _check(name, got, sample, dtype)


def _strided(arr, dtype):
    """The same values as arr in a tensor whose last dim is strided (every other element)."""
    t = to_ember(np.stack([arr, arr], axis=-1), dtype)
    return t[..., 0]


@pytest.mark.parametrize("name", TENSOR_FNS)
def test_noncontiguous_input(name):
    fn = getattr(efft, name)
    for dtype in ("float64", "complex128"):
        if dtype not in BY_NAME[name].extra["dtypes"]:
            continue
        for sample in BY_NAME[name].sample_inputs(dtype, np.random.default_rng(1)):
            x = _strided(sample.args[0], dtype)
            assert not x.is_contiguous() or x.numel() <= 1
            _check(name, fn(x, *sample.args[1:], **sample.kwargs), sample, dtype, " (strided)")
            if x.dim() >= 2:  # a transposed input too
                xt = to_ember(np.ascontiguousarray(np.swapaxes(sample.args[0], 0, 1)), dtype).transpose(0, 1)
                _check(name, fn(xt, *sample.args[1:], **sample.kwargs), sample, dtype, " (transposed)")


@pytest.mark.parametrize("name", [n for n in BY_NAME if n not in ("fftshift", "ifftshift")])
def test_out(name):
    fn = getattr(efft, name)
    dtype = "float64"
    sample = BY_NAME[name].sample_inputs(dtype, np.random.default_rng(2))[1]
    args = _ember_args(sample, dtype)
    want = fn(*args, **sample.kwargs)
    out = ember.empty(0, dtype=want.dtype)
    got = fn(*args, **sample.kwargs, out=out)
    assert got is out and out.shape == want.shape
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    wrong = ember.empty(0, dtype=ember.int64)
    with pytest.raises((RuntimeError, TypeError), match="type"):
        fn(*args, **sample.kwargs, out=wrong)


def _grad_samples(name, dtype, limit=3):
    """Samples small enough for finite differences, with leaves that require grad."""
    out = []
    for sample in BY_NAME[name].sample_inputs(dtype, np.random.default_rng(3)):
        x = sample.args[0]
        if 0 < x.size <= 24:
            out.append((ember.tensor(x, requires_grad=True), sample.kwargs))
    return out[:limit]


@pytest.mark.parametrize("name,dtype", GRAD_PARAMS, ids=[f"{n}-{d}" for n, d in GRAD_PARAMS])
def test_gradcheck_and_gradgradcheck(name, dtype):
    fn = getattr(efft, name)
    samples = _grad_samples(name, dtype)
    assert samples
    for x, kw in samples:
        assert gradcheck(lambda t: fn(t, **kw), (x,), eps=1e-6, atol=1e-5, rtol=1e-3), kw
    x, kw = samples[0]
    assert gradgradcheck(lambda t: fn(t, **kw), (x,), eps=1e-6, atol=1e-4, rtol=1e-3), kw


@pytest.mark.parametrize("name,dtype", GRAD_PARAMS, ids=[f"{n}-{d}" for n, d in GRAD_PARAMS])
def test_forward_mode(name, dtype):
    """Forward-mode tangents against central differences (the transforms are linear: J t = f(t))."""
    fn = getattr(efft, name)
    rng = np.random.default_rng(4)
    for x, kw in _grad_samples(name, dtype, limit=2):
        x = x.detach()
        t = rng.standard_normal(x.shape) + (1j * rng.standard_normal(x.shape) if x.is_complex() else 0)
        t = ember.tensor(t)
        eps = 1e-6
        want = (fn(x + eps * t, **kw).numpy() - fn(x - eps * t, **kw).numpy()) / (2 * eps)
        with forward_ad.dual_level():
            got = forward_ad.unpack_dual(fn(forward_ad.make_dual(x, t), **kw)).tangent
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5, err_msg=f"{name} {kw}")


@pytest.mark.parametrize("fn,dtype,want", [
    (efft.fft, ember.float32, ember.complex64), (efft.fft, ember.float64, ember.complex128),
    (efft.fft, ember.int32, ember.complex64), (efft.fft, ember.bool, ember.complex64),
    (efft.fft, ember.complex64, ember.complex64), (efft.rfft, ember.int64, ember.complex64),
    (efft.rfft, ember.float64, ember.complex128), (efft.irfft, ember.float32, ember.float32),
    (efft.irfft, ember.complex128, ember.float64), (efft.hfft, ember.complex64, ember.float32),
    (efft.ihfft, ember.float64, ember.complex128), (efft.fftshift, ember.int64, ember.int64),
])
def test_result_dtypes(fn, dtype, want):
    assert fn(ember.ones(4, dtype=dtype)).dtype == want


def test_freq_options():
    f = efft.fftfreq(6, 0.5, dtype=ember.float64, requires_grad=True)
    assert f.requires_grad and f.is_leaf and f.dtype == ember.float64
    np.testing.assert_allclose(f.detach().numpy(), np.fft.fftfreq(6, 0.5))
    assert efft.rfftfreq(7, dtype=ember.complex64).dtype == ember.complex64
    assert efft.fftfreq(0).shape == (0,)
    assert efft.fftshift(ember.tensor(3.0)).item() == 3.0


def test_default_dtype_promotion():
    old = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert efft.fft(ember.arange(4)).dtype == ember.complex128
        assert efft.fftfreq(4).dtype == ember.float64
    finally:
        ember.set_default_dtype(old)


@pytest.mark.parametrize("call,exc,match", [
    (lambda: efft.fft(ember.ones(4), n=0), RuntimeError, r"Invalid number of data points \(0\)"),
    (lambda: efft.fft(ember.ones(4), n=-2), RuntimeError, "Invalid number of data points"),
    (lambda: efft.fft(ember.ones(0)), RuntimeError, r"Invalid number of data points \(0\)"),
    (lambda: efft.fft(ember.ones(4), dim=1), IndexError, "Dimension out of range"),
    (lambda: efft.fft(ember.tensor(1.0)), IndexError, "tensor has no dimensions"),
    (lambda: efft.fftn(ember.ones(2, 3), dim=[0, 0]), RuntimeError, "unique"),
    (lambda: efft.fftn(ember.ones(2, 3), dim=[0, -2]), RuntimeError, "unique"),
    (lambda: efft.fftn(ember.ones(2, 3), s=[2], dim=[0, 1]), RuntimeError, "same length"),
    (lambda: efft.fftn(ember.ones(2, 3), s=[2, 2, 2]), RuntimeError, "only has 2 dimensions"),
    (lambda: efft.fft2(ember.ones(3)), IndexError, "Dimension out of range"),
    (lambda: efft.fftn(ember.ones(2, 3), s=[0, 2]), RuntimeError, r"Invalid number of data points \(0\)"),
    (lambda: efft.irfft(ember.ones(1, dtype=ember.complex64)), RuntimeError, r"Invalid number of data points \(0\)"),
    (lambda: efft.irfft(ember.ones(4, dtype=ember.complex64), n=0), RuntimeError, "Invalid number of data points"),
    (lambda: efft.irfftn(ember.ones(2, 1, dtype=ember.complex64)), RuntimeError,
     r"Invalid number of data points \(0\)"),
    (lambda: efft.rfft(ember.ones(4, dtype=ember.complex64)), RuntimeError, "expects a real input tensor"),
    (lambda: efft.ihfft(ember.ones(4, dtype=ember.complex128)), RuntimeError, "expects a real input tensor"),
    (lambda: efft.rfftn(ember.ones(2, 3), dim=[]), RuntimeError, "at least one axis"),
    (lambda: efft.fft(ember.ones(4), norm="bad"), ValueError, "Invalid normalization mode"),
    (lambda: efft.fft(ember.ones(4, dtype=ember.float16)), TypeError, "float16"),
    (lambda: efft.rfft(ember.ones(4, dtype=ember.bfloat16)), TypeError, "bfloat16"),
    (lambda: efft.fft([1.0, 2.0]), TypeError, "must be a Tensor"),
    (lambda: efft.fftfreq(4, dtype=ember.int64), TypeError, "floating point or complex dtype"),
    (lambda: efft.fftfreq(-1), RuntimeError, "non-negative"),
    (lambda: efft.fftshift(ember.ones(2, 3), dim=2), IndexError, "Dimension out of range"),
    (lambda: ember._C._fft_c2c(ember.ones(3), [0], 0, True), TypeError, "complex input"),
    (lambda: ember._C._fft_r2c(ember.ones(3, dtype=ember.float16), [0], 0, True), TypeError, "float32 or float64"),
    (lambda: ember._C._fft_c2r(ember.ones(3, dtype=ember.complex64), [0], 0, 9), RuntimeError, "needs 5 input bins"),
    (lambda: ember._C._fft_c2c(ember.ones(3, dtype=ember.complex64), [0], 3, True), RuntimeError, "normalization"),
    (lambda: ember._C._fft_c2c(ember.ones(3, 2, dtype=ember.complex64), [0, -2], 0, True), RuntimeError, "unique"),
    (lambda: ember._C._fft_r2c(ember.ones(3), [], 0, True), RuntimeError, "at least one dim"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_out_with_grad_raises():
    x = ember.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        efft.fft(x, out=ember.empty(4, dtype=ember.complex64))


def test_meta_inputs_give_shapes_and_dtypes():
    x = ember.empty(2, 3, 8, device="meta")
    assert efft.rfft(x).shape == (2, 3, 5) and efft.rfft(x).dtype == ember.complex64
    assert efft.fft2(x, s=[4, 6]).shape == (2, 4, 6)
    y = ember.empty(3, 5, dtype=ember.complex128, device="meta")
    r = efft.irfft(y)
    assert r.is_meta and r.shape == (3, 8) and r.dtype == ember.float64


def test_large_and_threaded_match_numpy():
    """Sizes past the threading threshold, with 1 and 2 threads: the same values as numpy."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 300, 70))
    y = rng.standard_normal(3 * 5 ** 6)
    old = ember.get_num_threads()
    try:
        for nt in (1, 2):
            ember.set_num_threads(nt)
            assert_matches_reference(efft.fft2(ember.tensor(x)).numpy(), np.fft.fft2(x), "complex128")
            assert_matches_reference(efft.rfft(ember.tensor(y)).numpy(), np.fft.rfft(y), "complex128",
                         {"complex128": (1e-9, 1e-9)})
            back = efft.irfft(ember.tensor(np.fft.rfft(y)), n=y.size)
            assert_matches_reference(back.numpy(), y, "float64", {"float64": (1e-9, 1e-9)})
    finally:
        ember.set_num_threads(old)


def test_base_build_without_avx2():
    """The ducc0 build for CPUs without AVX2 (EMBER_FFT_NO_AVX2=1 picks it here): numpy's values."""
    import os
    import subprocess
    import sys
    code = ("import numpy as np, ember, ember.fft as f\n"
            "rng = np.random.default_rng(0)\n"
            "x, z = rng.standard_normal((4, 50, 30)), rng.standard_normal(1000) + 1j * rng.standard_normal(1000)\n"
            "for dt in (np.float32, np.float64):\n"
            "    tol = 1e-4 if dt == np.float32 else 1e-10\n"
            "    a = x.astype(dt)\n"
            "    np.testing.assert_allclose(f.rfft2(ember.tensor(a)).numpy(), np.fft.rfft2(a), rtol=tol, atol=tol)\n"
            "    np.testing.assert_allclose(f.irfftn(ember.tensor(np.fft.rfftn(a))).numpy(), a, rtol=tol, atol=tol)\n"
            "    c = z.astype(np.complex64 if dt == np.float32 else np.complex128)\n"
            "    np.testing.assert_allclose(f.ifft(ember.tensor(c)).numpy(), np.fft.ifft(c), rtol=tol, atol=tol)\n"
            "print('ok')\n")
    env = dict(os.environ, EMBER_FFT_NO_AVX2="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_roundtrips():
    rng = np.random.default_rng(6)
    x = ember.tensor(rng.standard_normal((3, 10)))
    for norm in (None, "ortho", "forward"):
        np.testing.assert_allclose(efft.irfft(efft.rfft(x, norm=norm), n=10, norm=norm).numpy(), x.numpy(), atol=1e-12)
        np.testing.assert_allclose(efft.ifftn(efft.fftn(x, norm=norm), norm=norm).numpy().real, x.numpy(), atol=1e-12)
        np.testing.assert_allclose(efft.hfft(efft.ihfft(x, norm=norm), n=10, norm=norm).numpy(), x.numpy(), atol=1e-12)
