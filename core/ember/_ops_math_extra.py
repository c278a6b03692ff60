"""PyTorch's math helpers written over ember's ops (so autograd comes from the parts): cross with the
legacy dim default, dist, renorm, cov/corrcoef, histogram, trapezoid rules, gradient, addr, frexp,
the spectral windows, and polygamma's method form."""
from __future__ import annotations

import math
import numbers
import warnings

from . import _C
from ._out_arg import write_out
from . import return_types as _rt

__all__ = ["cross", "dist", "renorm", "cov", "corrcoef", "histogram", "trapezoid", "trapz", "cumulative_trapezoid",
           "gradient", "addr", "frexp", "hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def cross(input, other, dim=None, *, out=None):
    """The cross product along dim; without dim, the first dim of size 3 (PyTorch's deprecated default)."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = (_C.empty(list(input.shape)) + _C.empty(list(other.shape))).shape
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    result = _C._linalg.cross(input, other, dim=dim)
    return write_out(out, result) if out is not None else result


def dist(input, other, p=2):
    return _C._linalg.vector_norm(input - other, p)


def renorm(input, p, dim, maxnorm):
    """Each slice along dim whose p-norm exceeds maxnorm scaled to norm maxnorm (by maxnorm / (norm + 1e-7))."""
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    dim = dim + input.dim() if dim < 0 else dim
    others = [d for d in range(input.dim()) if d != dim]
    norm = _C._linalg.vector_norm(input, p, others, True)
    factor = _C.where(norm > maxnorm, maxnorm / (norm + 1e-7), _C.ones_like(norm))
    return input * factor


def _renorm_(input, p, dim, maxnorm):
    return input.copy_(renorm(input, p, dim, maxnorm))


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of input's rows (variables) over its columns (observations), as numpy.cov."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dim() > 1 or fweights.numel() != n_obs:
            raise RuntimeError(f"cov(): expected fweights to have one dimension and {n_obs} elements")
        if fweights.is_floating_point() or fweights.is_complex():
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{_dtype_name(fweights.dtype)} dtype")
        if fweights.numel() and fweights.min().item() < 0:
            raise RuntimeError(f"cov(): expected fweights to be non-negative but got {fweights.min().item()}")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1 or aweights.numel() != n_obs:
            raise RuntimeError(f"cov(): expected aweights to have one dimension and {n_obs} elements")
        if not aweights.is_floating_point():
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{_dtype_name(aweights.dtype)} dtype")
        if aweights.numel() and aweights.min().item() < 0:
            raise RuntimeError(f"cov(): expected aweights to be non-negative but got {aweights.min().item()}")
        w = aweights if w is None else w * aweights
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(_C.get_default_dtype())
    if w is None:
        w_sum = float(n_obs)
        avg = x.mean(1)
        norm = w_sum - correction
    else:
        w = w.to(x.dtype if not x.is_complex() else _C.float64)
        w_sum_t = w.sum()
        w_sum = w_sum_t.item()
        avg = (x * w).sum(1) / w_sum_t
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum().item() / w_sum
    if norm <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", RuntimeWarning, stacklevel=2)
        norm = 0.0
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = (xw @ xm.mH) / norm if norm else (xw @ xm.mH) / 0.0
    return c.squeeze() if input.dim() < 2 else c


def _dtype_name(dtype):
    return str(dtype).split(".")[-1].capitalize()


def corrcoef(input):
    """Pearson correlation coefficients of input's rows, clipped to [-1, 1] as numpy.corrcoef."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt() if not c.is_complex() else d.real.sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    if c.is_complex():
        return _C.complex(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)


def histogram(input, bins, *, range=None, weight=None, density=False, out=None):
    """(hist, bin_edges): counts (or summed weights) of input in bins equal bins over range (or input's min..max),
    or between the given edges; the last bin includes its right edge."""
    if not input.is_floating_point():
        raise NotImplementedError(f'"histogramdd" not implemented for \'{_dtype_name(input.dtype)}\'')
    flat = input.reshape(-1)
    if isinstance(bins, _C.TensorBase):
        if bins.dim() != 1:
            raise RuntimeError(f"torch.histogramdd(): bins tensor should have one dimension, but got {bins.dim()}")
        edges = bins.to(input.dtype)
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogramdd(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif flat.numel():
            lo, hi = flat.min().item(), flat.max().item()
        else:
            lo, hi = 0.0, 0.0
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd(): for dimension 0, min ({lo}) should be less than or equal to "
                               f"max ({hi})")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _C.linspace(lo, hi, bins + 1, dtype=input.dtype)
    nb = edges.shape[0] - 1
    inside = (flat >= edges[0]) & (flat <= edges[-1])
    idx = (_C.searchsorted(edges, flat, right=True) - 1).clamp(0, max(nb - 1, 0))
    w = _C.ones_like(flat) if weight is None else weight.reshape(-1).to(input.dtype)
    w = _C.where(inside, w, _C.zeros_like(w))
    hist = _C.zeros([nb], dtype=input.dtype).index_add(0, idx, w) if nb else _C.zeros([0], dtype=input.dtype)
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return _rt.histogram(hist, edges)


def _trapezoid_weights_check(y, x, dim):
    if x.dim() == 1 and x.shape[0] != y.shape[dim]:
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point")


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule's integral of y along dim, at the points x (or spacing dx, default 1)."""
    dim = dim + y.dim() if dim < 0 else dim
    n = y.shape[dim]
    if n == 0:
        return y.sum(dim) * 0
    left, right = y.narrow(dim, 0, n - 1), y.narrow(dim, 1, n - 1)
    if x is None or isinstance(x, numbers.Number):
        step = dx if dx is not None else (x if x is not None else 1)
        return (left + right).sum(dim) * (step / 2)
    _trapezoid_weights_check(y, x, dim)
    d = x.diff(dim=-1 if x.dim() == 1 else dim)
    if x.dim() == 1:
        d = d.reshape([-1 if i == dim else 1 for i in range(y.dim())])
    return ((left + right) * d).sum(dim) / 2


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid-rule integral of y along dim (one element shorter than y there)."""
    dim = dim + y.dim() if dim < 0 else dim
    n = y.shape[dim]
    if n == 0:
        return y.narrow(dim, 0, 0)
    left, right = y.narrow(dim, 0, n - 1), y.narrow(dim, 1, n - 1)
    if x is None or isinstance(x, numbers.Number):
        step = dx if dx is not None else (x if x is not None else 1)
        return ((left + right) * (step / 2)).cumsum(dim)
    _trapezoid_weights_check(y, x, dim)
    d = x.diff(dim=-1 if x.dim() == 1 else dim)
    if x.dim() == 1:
        d = d.reshape([-1 if i == dim else 1 for i in range(y.dim())])
    return ((left + right) * d / 2).cumsum(dim)


def _gradient_along(f, h, dim, edge_order):
    """numpy.gradient along one dim: second-order central differences inside (for uniform or given
    coordinates h), first- or second-order one-sided ones at the edges."""
    n = f.shape[dim]
    if n < edge_order + 1:
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")

    def sl(a, b):
        return f.narrow(dim, a, b - a)
    if isinstance(h, numbers.Number):
        inner = (sl(2, n) - sl(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (sl(1, 2) - sl(0, 1)) / h
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
        else:
            first = (-1.5 * sl(0, 1) + 2 * sl(1, 2) - 0.5 * sl(2, 3)) / h
            last = (0.5 * sl(n - 3, n - 2) - 2 * sl(n - 2, n - 1) + 1.5 * sl(n - 1, n)) / h
        return _C.cat([first, inner, last], dim)
    shape = [-1 if i == dim else 1 for i in range(f.dim())]
    dx = h.diff().to(f.dtype if f.is_floating_point() else _C.get_default_dtype())
    h1, h2 = dx[:-1].reshape(shape), dx[1:].reshape(shape)
    inner = (h1 ** 2 * sl(2, n) - h2 ** 2 * sl(0, n - 2) + (h2 ** 2 - h1 ** 2) * sl(1, n - 1)) / (h1 * h2 * (h1 + h2))
    if edge_order == 1:
        first = (sl(1, 2) - sl(0, 1)) / dx[0]
        last = (sl(n - 1, n) - sl(n - 2, n - 1)) / dx[-1]
    else:
        a, b = dx[0].item(), dx[1].item()
        first = (-(2 * a + b) / (a * (a + b)) * sl(0, 1) + (a + b) / (a * b) * sl(1, 2) - a / (b * (a + b)) * sl(2, 3))
        a, b = dx[-2].item(), dx[-1].item()
        last = (b / (a * (a + b)) * sl(n - 3, n - 2) - (a + b) / (a * b) * sl(n - 2, n - 1)
                + (a + 2 * b) / (b * (a + b)) * sl(n - 1, n))
    return _C.cat([first, inner, last], dim)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """numpy.gradient: a tuple with the derivative estimate along each of dim (all dims by default)."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.dim())) if dim is None else ([dim] if isinstance(dim, numbers.Integral) else list(dim))
    dims = [d + input.dim() if d < 0 else d for d in dims]
    if isinstance(spacing, (numbers.Number, _C.TensorBase)):
        spacing = [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length "
                           f"{len(spacing)} and a dim argument of length {len(dims)}.")
    f = input if input.is_floating_point() or input.is_complex() else input.to(_C.get_default_dtype())
    out = []
    for d, h in zip(dims, spacing):
        if isinstance(h, _C.TensorBase) and h.dim() == 0:
            h = h.item()
        out.append(_gradient_along(f, h, d, edge_order))
    return tuple(out)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * outer(vec1, vec2); with beta 0, input (NaN included) is ignored."""
    if vec1.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    if input.dtype == _C.bool and (isinstance(beta, float) or isinstance(alpha, float)):
        raise RuntimeError("Boolean beta only supported for Boolean results.")
    prod = vec1.outer(vec2)
    prod = prod if alpha == 1 else prod * alpha
    if input.dtype == _C.bool:
        result = prod if not beta else (input & True) | prod
    elif beta == 0:
        result = prod + _C.zeros_like(input)
    else:
        result = (input if beta == 1 else input * beta) + prod
    return write_out(out, result) if out is not None else result


def _addr_(input, vec1, vec2, *, beta=1, alpha=1):
    return input.copy_(addr(input, vec1, vec2, beta=beta, alpha=alpha))


def frexp(input, *, out=None):
    """(mantissa, exponent): input = mantissa * 2**exponent, |mantissa| in [0.5, 1) (0, inf and NaN give
    themselves and exponent 0); exponent is int32."""
    if not input.is_floating_point():
        raise RuntimeError(f"torch.frexp() only supports floating-point dtypes, but got {_dtype_name(input.dtype)}")
    x = input.detach()
    finite = x.isfinite() & (x != 0)
    mag = _C.where(finite, x.abs(), _C.ones_like(x)).to(_C.float64)
    e = mag.log2().floor() + 1
    m = mag / e.exp2()
    e = e + (m >= 1).to(e.dtype) - (m < 0.5).to(e.dtype)  # log2 may round across a power of two
    exponent = _C.where(finite, e, _C.zeros_like(e)).to(_C.int32)
    mantissa = input / exponent.to(_C.float64).exp2().to(input.dtype)
    result = _rt.frexp(mantissa, exponent)
    if out is not None:
        return _rt.frexp(write_out(out[0], mantissa), write_out(out[1], exponent))
    return result


def _window_length(name, window_length, dtype):
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dtype = dtype or _C.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    return dtype


def _cosine_window(name, window_length, periodic, coeffs, dtype, requires_grad):
    """sum_k (-1)^k a_k cos(2 pi k n / N), N = window_length (periodic) or window_length - 1."""
    dtype = _window_length(name, window_length, dtype)
    if window_length <= 1:
        return _C.ones([window_length], dtype=dtype).requires_grad_(requires_grad)
    denom = window_length if periodic else window_length - 1
    n = _C.arange(window_length, dtype=_C.float64)
    w = _C.zeros([window_length], dtype=_C.float64)
    for k, a in enumerate(coeffs):
        w = w + (-1) ** k * a * (n * (2 * math.pi * k / denom)).cos()
    return w.to(dtype).requires_grad_(requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _cosine_window("hann_window", window_length, periodic, (0.5, 0.5), dtype, requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    return _cosine_window("hamming_window", window_length, periodic, (alpha, beta), dtype, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _cosine_window("blackman_window", window_length, periodic, (0.42, 0.5, 0.08), dtype, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The triangle 1 - |2n/N - 1|, N = window_length (periodic) or window_length - 1."""
    dtype = _window_length("bartlett_window", window_length, dtype)
    if window_length <= 1:
        return _C.ones([window_length], dtype=dtype).requires_grad_(requires_grad)
    denom = window_length if periodic else window_length - 1
    n = _C.arange(window_length, dtype=_C.float64)
    return (1 - (n * (2 / denom) - 1).abs()).to(dtype).requires_grad_(requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """I0(beta * sqrt(1 - (2n/N - 1)^2)) / I0(beta), N = window_length (periodic) or window_length - 1."""
    dtype = _window_length("kaiser_window", window_length, dtype)
    if window_length <= 1:
        return _C.ones([window_length], dtype=dtype).requires_grad_(requires_grad)
    denom = window_length if periodic else window_length - 1
    n = _C.arange(window_length, dtype=_C.float64)
    r = (1 - (n * (2 / denom) - 1) ** 2).clamp(min=0).sqrt()
    return ((r * beta).i0() / _C.tensor(beta, dtype=_C.float64).i0()).to(dtype).requires_grad_(requires_grad)


class MathMethods:
    """The Tensor methods of these functions (and polygamma's, whose method takes n second)."""
    cross = cross
    dist = dist
    renorm = renorm
    renorm_ = _renorm_
    cov = cov
    corrcoef = corrcoef
    histogram = histogram
    addr = addr
    addr_ = _addr_
    frexp = frexp

    def polygamma(self, n):
        return _C.polygamma(n, self)

    def polygamma_(self, n):
        return self.copy_(_C.polygamma(n, self))
