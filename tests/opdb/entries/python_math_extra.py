"""OpInfos of the math helpers written in Python (core/ember/_ops_math_extra.py) against NumPy/SciPy."""
import numpy as np
import scipy.integrate
import scipy.signal.windows as windows

import ember
from ember.testing.opinfo import Sample, register

from ._python_level import python_opinfo


def _r(rng, *shape):
    return rng.uniform(-2, 2, shape)


def _renorm(x, p, dim, maxnorm):
    axes = tuple(a for a in range(x.ndim) if a != dim % x.ndim)
    norms = np.sum(np.abs(x) ** p, axis=axes, keepdims=True) ** (1 / p)
    return np.where(norms > maxnorm, x * maxnorm / (norms + 1e-7), x)


def _trapezoid(y, x=None, *, dx=None, dim=-1):
    return scipy.integrate.trapezoid(y, x, dx=1.0 if dx is None else dx, axis=dim)


def _cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    return scipy.integrate.cumulative_trapezoid(y, x, dx=1.0 if dx is None else dx, axis=dim)


def _gradient(y, *, spacing=1, dim=None, edge_order=1):
    axes = list(range(y.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    out = np.gradient(y, *([spacing] * len(axes) if np.isscalar(spacing) else spacing), axis=axes,
                      edge_order=edge_order)
    return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def _window(fn):
    def ref(n, periodic=True, *args, dtype=None):
        return fn(n, *args, sym=not periodic) if n > 1 else np.ones(n)
    return ref


def _window_samples(*extra):
    def samples(dtype, rng):
        d = {"dtype": getattr(ember, dtype)}
        return [Sample((n, periodic) + extra, d) for n in (1, 2, 7, 10) for periodic in (True, False)]
    return samples


_W = {"hann_window": (windows.hann, ()), "hamming_window": (windows.hamming, ()),
      "blackman_window": (windows.blackman, ()), "bartlett_window": (windows.bartlett, ()),
      "kaiser_window": (lambda n, beta, sym: windows.kaiser(n, beta, sym=sym), (5.0,))}

register(
    python_opinfo("cross", lambda a, b, dim=None: np.cross(a, b, axis=dim),
                  lambda dtype, rng: [Sample((_r(rng, 4, 3), _r(rng, 4, 3)), {"dim": 1}),
                                      Sample((_r(rng, 3, 2), _r(rng, 3, 2)), {"dim": 0})], method=True),
    python_opinfo("dist", lambda a, b, p=2: np.linalg.norm((a - b).ravel(), p),
                  lambda dtype, rng: [Sample((_r(rng, 3, 4), _r(rng, 3, 4), p)) for p in (1, 2, 3.5)], method=True),
    python_opinfo("renorm", _renorm, lambda dtype, rng: [Sample((_r(rng, 3, 4) * 3, p, d, 1.5))
                                                         for p, d in ((2, 0), (1, 1), (3, -1))], method=True),
    python_opinfo("cov", lambda x, correction=1: np.cov(x, ddof=correction),
                  lambda dtype, rng: [Sample((_r(rng, 3, 6),)), Sample((_r(rng, 2, 5),), {"correction": 0})],
                  method=True),
    python_opinfo("corrcoef", np.corrcoef, lambda dtype, rng: [Sample((_r(rng, 3, 6),))], method=True),
    python_opinfo("trapezoid", _trapezoid,
                  lambda dtype, rng: [Sample((_r(rng, 3, 5),)), Sample((_r(rng, 3, 5),), {"dx": 0.5, "dim": 0}),
                                      Sample((_r(rng, 2, 5), np.sort(_r(rng, 5))))]),
    python_opinfo("cumulative_trapezoid", _cumulative_trapezoid,
                  lambda dtype, rng: [Sample((_r(rng, 3, 5),)), Sample((_r(rng, 3, 5),), {"dx": 0.5, "dim": 0}),
                                      Sample((_r(rng, 2, 5), np.sort(_r(rng, 5))))]),
    python_opinfo("gradient", _gradient,
                  lambda dtype, rng: [Sample((_r(rng, 6),)), Sample((_r(rng, 4, 5),), {"spacing": 2.0}),
                                      Sample((_r(rng, 4, 5),), {"dim": 1, "edge_order": 2})]),
    python_opinfo("addr", lambda m, a, b, beta=1, alpha=1: beta * m + alpha * np.outer(a, b),
                  lambda dtype, rng: [Sample((_r(rng, 3, 4), _r(rng, 3), _r(rng, 4))),
                                      Sample((_r(rng, 3, 4), _r(rng, 3), _r(rng, 4)), {"beta": 0.5, "alpha": -2.0})],
                  method=True),
    python_opinfo("frexp", lambda x: np.frexp(x), lambda dtype, rng: [Sample((_r(rng, 3, 4) * 100,))], method=True,
                  grad=False),
    *[python_opinfo(name, _window(fn), _window_samples(*extra), grad=False) for name, (fn, extra) in _W.items()],
)
