"""OpInfos for core/ops/scan.yaml: cumsum, cumprod, logcumsumexp against np.cumsum, np.cumprod and
np.logaddexp.accumulate; cummax/cummin values against np.maximum/minimum.accumulate with PyTorch's
index rule (an equal value or a NaN moves the index forward); diff against np.diff."""
import warnings

import numpy as np

import ember
from ember.testing.opinfo import FLOATS, INTS, OpInfo, Sample, random_array, register


def _arr(dtype, rng, shape, domain=(-3.0, 3.0)):
    return np.asarray(random_array(dtype, shape, rng, domain, (-9, 10)))


SCAN_CASES = [((), 0), ((), -1), ((7,), 0), ((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), 1),
              ((2, 3, 4), 0), ((0,), 0), ((2, 0, 3), 2), ((1, 5, 1), 1)]


def _scan_samples(make=_arr):
    def samples(dtype, rng):
        return [Sample(args=(make(dtype, rng, shape), dim)) for shape, dim in SCAN_CASES]
    return samples


def _hi(a):
    a = np.asarray(a)
    return a.astype(np.float64) if a.dtype.kind == "f" else a.astype(np.complex128) if a.dtype.kind == "c" else a


def _1d(ref):
    """Runs refs on 0-D inputs as 1-element 1-D arrays (PyTorch accepts dim 0 / -1 there)."""
    def wrapped(a, dim, **kw):
        if np.ndim(a) == 0:
            r = ref(np.reshape(a, (1,)), 0, **kw)
            return tuple(np.reshape(x, ()) for x in r) if isinstance(r, tuple) else np.reshape(r, ())
        return ref(a, dim, **kw)
    return wrapped


def ref_cumsum(a, dim):
    return np.cumsum(_hi(a), axis=dim, dtype=np.int64 if a.dtype.kind in "biu" else None)


def ref_cumprod(a, dim):
    return np.cumprod(_hi(a), axis=dim, dtype=np.int64 if a.dtype.kind in "biu" else None)


def _small(dtype, rng, shape):
    return _arr(dtype, rng, shape, (-1.5, 1.5))


def _with_nan_ties(dtype, rng, shape):
    a = np.asarray(random_array(dtype, shape, rng, (-2.0, 2.0), (-2, 3)))
    if dtype in FLOATS and a.size:
        a = np.asarray(np.round(a.astype(np.float64)))
        if rng.random() < 0.5:
            a.flat[rng.integers(0, a.size)] = np.nan
    return a


def _cum_extreme(a, dim, is_max):
    """PyTorch's cummax/cummin: the index moves on ties (>= / <=) and on every NaN."""
    a = np.moveaxis(_hi(a), dim, -1)
    vals = np.empty_like(a)
    idx = np.empty(a.shape, np.int64)
    for pos in np.ndindex(*a.shape[:-1]):
        best, bi = None, -1
        for i, x in enumerate(a[pos]):
            take = best is None or np.isnan(x) or (not np.isnan(best) and (x >= best if is_max else x <= best))
            if take:
                best, bi = x, i
            vals[pos + (i,)] = best
            idx[pos + (i,)] = bi
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)


def ref_logcumsumexp(a, dim):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.logaddexp.accumulate(_hi(a), axis=dim)


def _lse_make(dtype, rng, shape):
    a = _arr(dtype, rng, shape, (-40.0, 40.0))
    if a.size > 2:
        a = a.astype(np.float64)
        a.flat[0] = -np.inf
    return a


DIFF_CASES = [((7,), 1, -1), ((7,), 2, -1), ((3, 4), 1, 0), ((3, 4), 3, 1), ((3, 4), 5, -1), ((2, 3, 4), 1, -2),
              ((3, 4), 0, -1), ((0,), 1, -1), ((2, 0), 1, 1)]


def _diff_samples(dtype, rng):
    """prepend/append go positionally: the harness turns only positional arrays into tensors."""
    out = [Sample(args=(_arr(dtype, rng, s), n, d)) for s, n, d in DIFF_CASES]
    out.append(Sample(args=(_arr(dtype, rng, (3, 4)), 1, 1, _arr(dtype, rng, (3, 2)))))
    out.append(Sample(args=(_arr(dtype, rng, (3, 4)), 2, 0, _arr(dtype, rng, (1, 4)), _arr(dtype, rng, (2, 4)))))
    out.append(Sample(args=(_arr(dtype, rng, (5,)), 1, -1, None, _arr(dtype, rng, (1,)))))
    return out


def ref_diff(a, n=1, dim=-1, prepend=None, append=None):
    kw = {}
    if prepend is not None:
        kw["prepend"] = prepend
    if append is not None:
        kw["append"] = append
    return np.diff(a, n=n, axis=dim, **kw)


def _dtype_check(rule):
    def check(got, sample, dtype):
        gots = got if isinstance(got, tuple) else (got,)
        wants = rule(dtype)
        wants = wants if isinstance(wants, tuple) else (wants,)
        for g, w in zip(gots, wants):
            assert g.dtype == w, f"dtype {g.dtype} != {w} for {dtype}"
    return check


def _cum_rule(d):
    return ember.int64 if d in ("bool",) + INTS else getattr(ember, d)


register(
    OpInfo("cumsum", ref=_1d(ref_cumsum), sample_inputs=_scan_samples(), check=_dtype_check(_cum_rule),
           tol={"float16": (4e-3, 4e-3), "bfloat16": (2e-2, 3e-2)}),
    OpInfo("cumprod", ref=_1d(ref_cumprod), sample_inputs=_scan_samples(_small), check=_dtype_check(_cum_rule),
           tol={"float16": (4e-3, 4e-3), "bfloat16": (2e-2, 3e-2)}),
    OpInfo("cummax", ref=_1d(lambda a, d: _cum_extreme(a, d, True)), sample_inputs=_scan_samples(_with_nan_ties),
           check=_dtype_check(lambda d: (getattr(ember, d), ember.int64))),
    OpInfo("cummin", ref=_1d(lambda a, d: _cum_extreme(a, d, False)), sample_inputs=_scan_samples(_with_nan_ties),
           check=_dtype_check(lambda d: (getattr(ember, d), ember.int64))),
    OpInfo("logcumsumexp", ref=_1d(ref_logcumsumexp), sample_inputs=_scan_samples(_lse_make),
           check=_dtype_check(lambda d: getattr(ember, d)), tol={"float16": (4e-3, 4e-3), "bfloat16": (2e-2, 3e-2)}),
    OpInfo("diff", ref=ref_diff, sample_inputs=_diff_samples),
)
