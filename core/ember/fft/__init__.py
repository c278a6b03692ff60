"""ember.fft: torch.fft's discrete Fourier transforms, helpers and shifts.

Every transform resolves its n/s, dim and norm here (core/ember/fft/_args.py) and runs one of the
three kernels of the op database (core/ops/fft.yaml: _fft_c2c, _fft_r2c, _fft_c2r, on ducc0), so
autograd, forward mode and higher derivatives come from their formulas. Real input to a complex
transform is made complex; integer input becomes the default float dtype, as in PyTorch.
"""
import ember as _e
from ember import _C

from . import _args as _a

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
    "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]
# Ops of the op database with `namespace: fft` (none yet: the transforms here run _fft_c2c, _fft_r2c
# and _fft_c2r), bound in ember._C._fft under their names without the fft_ prefix.
from .._C._fft import *  # noqa: E402,F403

__all__ += _C._fft.__all__


# --- complex-to-complex ------------------------------------------------------------------------

def _c2c(name, input, dims, sizes, norm, forward, out):
    x = _a.as_complex(input, name)
    code = _a.norm_code(norm, forward)
    return _a.call(_C._fft_c2c, _a.resize(x, dims, sizes), dims, code, forward, out=out)


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D discrete Fourier transform of input along dim, zero-padded or trimmed to n points."""
    d, n = _a.one_dim(input, n, dim)
    return _c2c("fft", input, [d], [n], norm, True, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D inverse discrete Fourier transform."""
    d, n = _a.one_dim(input, n, dim)
    return _c2c("ifft", input, [d], [n], norm, False, out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D discrete Fourier transform over dim (default: the last len(s) dims, or all)."""
    dims, sizes = _a.dims_and_sizes(input, s, dim)
    return _c2c("fftn", input, dims, sizes, norm, True, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D inverse discrete Fourier transform."""
    dims, sizes = _a.dims_and_sizes(input, s, dim)
    return _c2c("ifftn", input, dims, sizes, norm, False, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D discrete Fourier transform (fftn over the last two dims by default)."""
    dims, sizes = _a.dims_and_sizes(input, s, dim)
    return _c2c("fft2", input, dims, sizes, norm, True, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D inverse discrete Fourier transform."""
    dims, sizes = _a.dims_and_sizes(input, s, dim)
    return _c2c("ifft2", input, dims, sizes, norm, False, out)


# --- real-to-complex (rfft*) and its Hermitian mirror (ihfft*) ------------------------------------

def _r2c(name, input, dims, sizes, norm, forward, out):
    """The onesided spectrum of a real signal; the inverse direction (ihfft) is its conjugate."""
    x = _a.as_real(input, name)
    args = (_a.resize(x, dims, sizes), dims, _a.norm_code(norm, forward), True)
    if forward:
        return _a.call(_C._fft_r2c, *args, out=out)
    return _a.call(_e.conj_physical, _C._fft_r2c(*args), out=out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D DFT of a real input: the n // 2 + 1 non-negative frequencies."""
    d, n = _a.one_dim(input, n, dim)
    return _r2c("rfft", input, [d], [n], norm, True, out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D DFT of a real input, halved along the last dim transformed."""
    dims, sizes = _a.dims_and_sizes(input, s, dim)
    _a.require_dims(dims, "rfftn")
    return _r2c("rfftn", input, dims, sizes, norm, True, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """rfftn over the last two dims by default."""
    dims, sizes = _a.dims_and_sizes(input, s, dim)
    _a.require_dims(dims, "rfft2")
    return _r2c("rfft2", input, dims, sizes, norm, True, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of hfft: the onesided inverse DFT of a real input."""
    d, n = _a.one_dim(input, n, dim)
    return _r2c("ihfft", input, [d], [n], norm, False, out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D inverse of hfftn."""
    dims, sizes = _a.dims_and_sizes(input, s, dim)
    _a.require_dims(dims, "ihfftn")
    return _r2c("ihfftn", input, dims, sizes, norm, False, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """ihfftn over the last two dims by default."""
    dims, sizes = _a.dims_and_sizes(input, s, dim)
    _a.require_dims(dims, "ihfft2")
    return _r2c("ihfft2", input, dims, sizes, norm, False, out)


# --- complex-to-real (irfft*) and its Hermitian mirror (hfft*) ------------------------------------

def _c2r(name, input, dims, sizes, last_given, norm, forward, out):
    """A real signal of sizes (the last one 2 * (bins - 1) unless given) from a half spectrum;
    the forward direction (hfft) transforms the conjugate."""
    x = _a.as_complex(input, name)
    last = sizes[-1] if last_given else 2 * (x.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    x = _a.resize(x, dims, sizes[:-1] + [last // 2 + 1])
    return _a.call(_C._fft_c2r, _e.conj(x) if forward else x, dims, _a.norm_code(norm, forward), last, out=out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of rfft: a real signal of n points (default 2 * (input.size(dim) - 1))."""
    d = _a.wrap_dim(dim, input.dim()) if isinstance(input, _C.TensorBase) else dim
    _a.check_optional_points(n)
    return _c2r("irfft", input, [d], [n], n is not None, norm, False, out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D inverse of rfftn; the last dim's output size is 2 * (bins - 1) unless s gives it."""
    dims, sizes, given = _a.half_spectrum_dims(input, s, dim)
    return _c2r("irfftn", input, dims, sizes, given, norm, False, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """irfftn over the last two dims by default."""
    dims, sizes, given = _a.half_spectrum_dims(input, s, dim)
    return _c2r("irfft2", input, dims, sizes, given, norm, False, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The DFT of a Hermitian-symmetric signal given by its first half: a real result of n points."""
    d = _a.wrap_dim(dim, input.dim()) if isinstance(input, _C.TensorBase) else dim
    _a.check_optional_points(n)
    return _c2r("hfft", input, [d], [n], n is not None, norm, True, out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D DFT of a Hermitian-symmetric signal given by its half along the last dim."""
    dims, sizes, given = _a.half_spectrum_dims(input, s, dim)
    return _c2r("hfftn", input, dims, sizes, given, norm, True, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """hfftn over the last two dims by default."""
    dims, sizes, given = _a.half_spectrum_dims(input, s, dim)
    return _c2r("hfft2", input, dims, sizes, given, norm, True, out)


# --- sample frequencies and shifts ----------------------------------------------------------------

def _freq_dtype(dtype, name):
    dtype = _e.get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise TypeError(f"{name}(): expects a floating point or complex dtype, but got {dtype}")
    return dtype


def _freq(name, ticks, n, d, out, dtype, device, requires_grad):
    dtype = _freq_dtype(dtype if out is None or dtype is not None else out.dtype, name)
    scale = 1.0 / (n * d) if n * d != 0 else float("inf")
    r = _a.call(_e.mul, _e.cat(ticks).to(dtype=dtype, device=device or "cpu"), scale, out=out)
    return r.requires_grad_(requires_grad) if requires_grad else r


def fftfreq(n, d=1.0, *, out=None, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point fft with sample spacing d: [0, 1, ..., -(n // 2), ..., -1] / (d n)."""
    _a.check_count(n, "fftfreq")
    ticks = [_e.arange(0, (n - 1) // 2 + 1), _e.arange(-(n // 2), 0)]
    return _freq("fftfreq", ticks, n, d, out, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point rfft: [0, 1, ..., n // 2] / (d n)."""
    _a.check_count(n, "rfftfreq")
    return _freq("rfftfreq", [_e.arange(0, n // 2 + 1)], n, d, out, dtype, device, requires_grad)


def _shift(name, input, dim, inverse):
    if not isinstance(input, _C.TensorBase):
        raise TypeError(f"{name}(): argument 'input' must be a Tensor, not {type(input).__name__}")
    if dim is None:
        dims = list(range(input.dim()))
    else:
        dims = [_a.wrap_dim(d, input.dim()) for d in ([dim] if isinstance(dim, int) else dim)]
    if not dims:
        return input.clone()
    shifts = [(input.shape[d] + 1) // 2 if inverse else input.shape[d] // 2 for d in dims]
    return _e.roll(input, shifts, dims)


def fftshift(input, dim=None):
    """Moves the zero frequency to the middle of dim (default: every dim): a roll by size // 2."""
    return _shift("fftshift", input, dim, False)


def ifftshift(input, dim=None):
    """The inverse of fftshift: a roll by (size + 1) // 2."""
    return _shift("ifftshift", input, dim, True)
