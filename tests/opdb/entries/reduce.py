"""OpInfos for core/ops/reduce.yaml: reductions against np.sum, np.mean, np.var, np.max, np.argmax,
np.all, scipy.special.logsumexp, ... over dims given as None, an int, a negative int or a tuple,
with keepdim, on 0-D, empty and NaN-holding inputs; result dtypes follow PyTorch's rules."""
import warnings

import numpy as np
import scipy.special

import ember
from ember.testing.opinfo import COMPLEX, FLOATS, INTS, OpInfo, Sample, random_array, register

SHAPES = [(), (7,), (3, 4), (2, 3, 4), (0,), (2, 0, 3), (1, 5, 1)]


def _arr(dtype, rng, shape, domain=(-3.0, 3.0)):
    return np.asarray(random_array(dtype, shape, rng, domain, (-9, 10)))


def _with_nan(dtype, rng, shape):
    a = _arr(dtype, rng, shape)
    if dtype in FLOATS and a.size:
        a = a.astype(np.float64)
        a.flat[rng.integers(0, a.size, size=max(1, a.size // 5))] = np.nan
    return a


def _axis(dim):
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return None
    return tuple(dim) if isinstance(dim, (tuple, list)) else dim


def _hi(a):
    """float64/complex128 copies for references (results are then compared in the test's dtype)."""
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return a.astype(np.float64)
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    return a


def _quiet(f):
    def wrapped(*args, **kwargs):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return f(*args, **kwargs)
    return wrapped


def _zd(ref):
    """NumPy refuses axis=0 on a 0-D array, PyTorch accepts it: run such refs on the 1-element 1-D
    array and give the results shape () (a 0-D reduction is 0-D, keepdim or not)."""
    def wrapped(a, *args, **kwargs):
        if np.ndim(a) != 0:
            return ref(a, *args, **kwargs)
        args = tuple(0 if isinstance(x, int) and not isinstance(x, bool) and i == 0 else x for i, x in enumerate(args))
        if isinstance(kwargs.get("dim"), int):
            kwargs["dim"] = 0
        elif kwargs.get("dim"):
            kwargs["dim"] = (0,)
        r = ref(np.reshape(a, (1,)), *args, **kwargs)
        return tuple(np.reshape(x, ()) for x in r) if isinstance(r, tuple) else np.reshape(r, ())
    return wrapped


def _dim_cases(shape):
    """(kwargs) for a shape: all dims, each dim, negative dims, a tuple, keepdim."""
    nd = len(shape)
    cases = [{}, {"keepdim": True}]
    if nd == 0:
        return cases + [{"dim": 0}, {"dim": -1, "keepdim": True}]
    cases += [{"dim": 0}, {"dim": -1, "keepdim": True}, {"dim": ()}]
    if nd >= 2:
        cases += [{"dim": (0, -1)}, {"dim": 1, "keepdim": True}]
    if nd >= 3:
        cases += [{"dim": (2, 0), "keepdim": True}, {"dim": (0, 1, 2)}]
    return cases


def _samples(cases_fn=_dim_cases, shapes=SHAPES, make=_arr, skip_empty=False):
    def make_samples(dtype, rng):
        out = []
        for shape in shapes:
            if skip_empty and 0 in shape:
                continue
            for kw in cases_fn(shape):
                out.append(Sample(args=(make(dtype, rng, shape),), kwargs=dict(kw)))
        return out
    return make_samples


def _single_dim_cases(shape):
    nd = len(shape)
    cases = [{}]
    if nd == 0:
        return cases + [{"dim": 0}, {"dim": -1, "keepdim": True}]
    cases += [{"dim": 0}, {"dim": -1, "keepdim": True}, {"dim": nd - 1}]
    return cases


def _has_empty_reduction(a, dim):
    """Whether some reduced dim of a has size 0 (min/max then raise)."""
    ax = _axis(dim)
    if a.size != 0:
        return False
    dims = range(a.ndim) if ax is None else ([ax] if isinstance(ax, int) else ax)
    return any(a.shape[d] == 0 for d in dims) if a.ndim else False


# --- sums and means -----------------------------------------------------------------------------

def _sum_dtype(a):
    return np.int64 if a.dtype.kind in "biu" else None


def ref_sum(a, dim=None, keepdim=False):
    r = np.sum(_hi(a), axis=_axis(dim), keepdims=keepdim, dtype=_sum_dtype(a))
    return r


def ref_nansum(a, dim=None, keepdim=False):
    return np.nansum(_hi(a), axis=_axis(dim), keepdims=keepdim, dtype=_sum_dtype(a))


@_quiet
def ref_mean(a, dim=None, keepdim=False):
    return np.mean(_hi(a), axis=_axis(dim), keepdims=keepdim)


@_quiet
def ref_nanmean(a, dim=None, keepdim=False):
    return np.nanmean(_hi(a), axis=_axis(dim), keepdims=keepdim)


def _prod_cases(shape):
    nd = len(shape)
    if nd == 0:
        return [{}, {"dim": 0}, {"dim": -1, "keepdim": True}]
    return [{}, {"dim": 0}, {"dim": -1, "keepdim": True}, {"dim": nd - 1}]


def ref_prod(a, dim=None, keepdim=False):
    if dim is None:
        r = np.prod(_hi(a), dtype=_sum_dtype(a))
        return np.reshape(r, (1,) * a.ndim) if keepdim else r
    return np.prod(_hi(a), axis=dim, keepdims=keepdim, dtype=_sum_dtype(a))


# --- moments ------------------------------------------------------------------------------------

def _moment_cases(shape):
    base = _dim_cases(shape)
    extra = [{"correction": 0}, {"unbiased": False}, {"correction": 2, "keepdim": True}]
    if len(shape) >= 2:
        extra += [{"dim": 1, "correction": 0.5}, {"dim": (0, 1), "unbiased": True}]
    return base + extra


def _ddof(correction=None, unbiased=None):
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


@_quiet
def ref_var(a, dim=None, unbiased=None, keepdim=False, correction=None):
    a = _hi(a)
    ax = _axis(dim)
    n = a.size if ax is None else int(np.prod([a.shape[d] for d in ((ax,) if isinstance(ax, int) else ax)]))
    mean = np.mean(a, axis=ax, keepdims=True)
    ss = np.sum(np.abs(a - mean) ** 2, axis=ax, keepdims=keepdim)
    return ss / max(0.0, n - _ddof(correction, unbiased))


def ref_std(*args, **kwargs):
    return np.sqrt(ref_var(*args, **kwargs))


def ref_var_mean(a, dim=None, unbiased=None, keepdim=False, correction=None):
    return ref_var(a, dim, unbiased, keepdim, correction), ref_mean(a, dim, keepdim)


def ref_std_mean(a, dim=None, unbiased=None, keepdim=False, correction=None):
    return ref_std(a, dim, unbiased, keepdim, correction), ref_mean(a, dim, keepdim)


# --- extremes -----------------------------------------------------------------------------------

def _nan_or_plain(dtype, rng, shape):
    return _with_nan(dtype, rng, shape) if rng.random() < 0.5 else _arr(dtype, rng, shape)


def _ties(dtype, rng, shape):
    """Few distinct values, so ties are common (first-index rule)."""
    return np.asarray(random_array(dtype, shape, rng, (-1.0, 1.0), (-2, 2))).round() if dtype not in (
        "bool",) else np.asarray(rng.random(shape) < 0.5)


def ref_max(a):
    return np.max(_hi(a))


def ref_min(a):
    return np.min(_hi(a))


def ref_max_dim(a, dim, keepdim=False):
    return np.max(_hi(a), axis=dim, keepdims=keepdim), np.argmax(a, axis=dim, keepdims=keepdim)


def ref_min_dim(a, dim, keepdim=False):
    return np.min(_hi(a), axis=dim, keepdims=keepdim), np.argmin(a, axis=dim, keepdims=keepdim)


def ref_amax(a, dim=(), keepdim=False):
    return np.amax(_hi(a), axis=_axis(dim), keepdims=keepdim)


def ref_amin(a, dim=(), keepdim=False):
    return np.amin(_hi(a), axis=_axis(dim), keepdims=keepdim)


def ref_aminmax(a, dim=None, keepdim=False):
    return np.min(_hi(a), axis=dim, keepdims=keepdim), np.max(_hi(a), axis=dim, keepdims=keepdim)


def ref_argmax(a, dim=None, keepdim=False):
    return np.argmax(a, axis=dim, keepdims=keepdim)


def ref_argmin(a, dim=None, keepdim=False):
    return np.argmin(a, axis=dim, keepdims=keepdim)


NONEMPTY = [(), (7,), (3, 4), (2, 3, 4), (1, 5, 1), (2, 0, 3)]


def _full_samples(dtype, rng):
    return [Sample(args=(_nan_or_plain(dtype, rng, s),)) for s in [(), (7,), (3, 4), (2, 3, 4)]] + [
        Sample(args=(_ties(dtype, rng, (5, 6)),))]


def _dim_samples(dtype, rng):
    out = []
    for shape in [(), (7,), (3, 4), (2, 3, 4), (2, 0, 3)]:
        for kw in _single_dim_cases(shape):
            if "dim" not in kw:
                continue
            a = _nan_or_plain(dtype, rng, shape)
            if _has_empty_reduction(a, kw["dim"]):
                continue
            out.append(Sample(args=(a,), kwargs=kw))
        if len(shape) >= 2 and 0 not in shape:
            out.append(Sample(args=(_ties(dtype, rng, shape),), kwargs={"dim": 1}))
    return out


def _amax_samples(dtype, rng):
    out = []
    for shape in NONEMPTY:
        for kw in _dim_cases(shape):
            if "dim" not in kw and kw:
                continue
            a = _nan_or_plain(dtype, rng, shape)
            if _has_empty_reduction(a, kw.get("dim")):
                continue
            out.append(Sample(args=(a,), kwargs=kw))
    return out


def _opt_dim_samples(dtype, rng):
    out = []
    for shape in NONEMPTY:
        for kw in _single_dim_cases(shape) + [{"keepdim": True}]:
            a = _nan_or_plain(dtype, rng, shape)
            if _has_empty_reduction(a, kw.get("dim")):
                continue
            out.append(Sample(args=(a,), kwargs=kw))
    out.append(Sample(args=(_ties(dtype, rng, (4, 5)),), kwargs={"dim": 0}))
    out.append(Sample(args=(_ties(dtype, rng, (4, 5)),)))
    return out


def _binary_samples(dtype, rng):
    return [Sample(args=(_nan_or_plain(dtype, rng, (3, 4)), _nan_or_plain(dtype, rng, (3, 4)))),
            Sample(args=(_arr(dtype, rng, (3, 1)), _arr(dtype, rng, (4,)))),
            Sample(args=(_arr(dtype, rng, ()), _arr(dtype, rng, (2, 2))))]


# --- logic, counting, logsumexp, norm -----------------------------------------------------------

def _sparse(dtype, rng, shape):
    """Mostly zeros, so all/any/count_nonzero see both outcomes."""
    a = _arr(dtype, rng, shape)
    mask = rng.random(shape) < 0.6
    if np.ndim(a) == 0:
        return np.asarray(a * (0 if mask else 1)).astype(a.dtype)
    a = a.copy()
    a[mask] = 0
    return a


def _logic_ref(fn):
    def ref(a, dim=None, keepdim=False):
        r = fn(a != 0, axis=_axis(dim), keepdims=keepdim)
        return np.asarray(r).astype(np.uint8) if a.dtype == np.uint8 else r
    return ref


def _count_cases(shape):
    return [kw for kw in _dim_cases(shape) if "keepdim" not in kw]


def ref_count_nonzero(a, dim=None):
    return np.count_nonzero(a, axis=_axis(dim))


def _lse_cases(shape):
    return [kw for kw in _dim_cases(shape) if "dim" in kw]


def _lse_make(dtype, rng, shape):
    a = _arr(dtype, rng, shape, domain=(-30.0, 30.0))
    if dtype in FLOATS and a.size > 2:
        a = a.astype(np.float64)
        a.flat[0] = -np.inf
        if rng.random() < 0.3:
            a.flat[1] = np.inf
    return a


@_quiet
def ref_logsumexp(a, dim, keepdim=False):
    a = a.astype(np.float64) if a.dtype.kind in "biuf" else a
    if a.size == 0:  # SciPy's logsumexp mishandles a tuple axis on empty arrays; the sum of nothing is 0
        return np.log(np.sum(np.exp(a), axis=_axis(dim), keepdims=keepdim))
    return scipy.special.logsumexp(a, axis=_axis(dim), keepdims=keepdim)


def _norm_cases(shape):
    nd = len(shape)
    cases = [{}, {"p": 1}, {"p": 3.5}, {"p": float("inf")}, {"p": 0}, {"p": "fro"}, {"p": None}]
    if nd >= 1:
        cases += [{"p": 2, "dim": -1}, {"p": 1, "dim": 0, "keepdim": True}, {"p": -float("inf"), "dim": 0}]
    if nd >= 2:
        cases += [{"p": "fro", "dim": (0, 1)}, {"dim": (1,), "keepdim": True}]
    return cases


@_quiet
def ref_norm(a, p="fro", dim=None, keepdim=False):
    m = np.abs(_hi(a))
    ax = _axis(dim)
    if p in ("fro", None, 2):
        return np.sqrt(np.sum(m * m, axis=ax, keepdims=keepdim))
    if p == float("inf"):
        return np.max(m, axis=ax, keepdims=keepdim)
    if p == -float("inf"):
        return np.min(m, axis=ax, keepdims=keepdim)
    if p == 0:
        return np.sum(m != 0, axis=ax, keepdims=keepdim).astype(np.float64)
    return np.sum(m ** p, axis=ax, keepdims=keepdim) ** (1.0 / p)


def _norm_samples(dtype, rng):
    out = []
    for shape in [(), (7,), (3, 4), (2, 3, 4), (2, 0, 3)]:
        for kw in _norm_cases(shape):
            a = _arr(dtype, rng, shape)
            if kw.get("p") in (float("inf"), -float("inf")) and a.size == 0:
                continue
            out.append(Sample(args=(a,), kwargs=kw))
    return out


def _norm_p_samples(dtype, rng):
    return [s for s in _norm_samples(dtype, rng) if "p" in s.kwargs and s.kwargs["p"] != "fro"]


def _norm_check(got, sample, dtype):
    want = {"complex64": ember.float32, "complex128": ember.float64}.get(dtype, getattr(ember, dtype))
    assert got.dtype == want, (got.dtype, dtype)


def _dtype_check(rule):
    """A check that the result dtype follows PyTorch's rule: rule(dtype name) -> ember dtype."""
    def check(got, sample, dtype):
        gots = got if isinstance(got, (tuple, list)) else (got,)
        wants = rule(dtype)
        wants = wants if isinstance(wants, tuple) else (wants,) * len(gots)
        for g, w in zip(gots, wants):
            assert g.dtype == w, f"dtype {g.dtype} != {w} for {dtype} {sample.kwargs}"
    return check


def _sum_rule(d):
    return ember.int64 if d in ("bool",) + INTS else getattr(ember, d)


def _same(d):
    return getattr(ember, d)


def _real(d):
    return {"complex64": ember.float32, "complex128": ember.float64}.get(d, getattr(ember, d))


register(
    OpInfo(
        "sum",
        ref=_zd(ref_sum),
        sample_inputs=_samples(),
        check=_dtype_check(_sum_rule),
        tol={"float16": (4e-3, 4e-3), "bfloat16": (2e-2, 5e-2)},
    ),
    OpInfo(
        "nansum",
        ref=_zd(ref_nansum),
        sample_inputs=_samples(make=_with_nan),
        check=_dtype_check(_sum_rule),
        tol={"float16": (4e-3, 4e-3), "bfloat16": (2e-2, 5e-2)},
    ),
    OpInfo("mean", ref=_zd(ref_mean), sample_inputs=_samples(), check=_dtype_check(_same)),
    OpInfo("nanmean", ref=_zd(ref_nanmean), sample_inputs=_samples(make=_with_nan), check=_dtype_check(_same)),
    OpInfo(
        "prod",
        ref=_zd(ref_prod),
        sample_inputs=_samples(_prod_cases, make=lambda d, r, s: _arr(d, r, s, (-1.5, 1.5))),
        check=_dtype_check(_sum_rule),
        tol={"float16": (4e-3, 4e-3), "bfloat16": (3e-2, 3e-2)},
    ),
    OpInfo(
        "var",
        ref=_zd(ref_var),
        sample_inputs=_samples(_moment_cases),
        check=_dtype_check(_real),
        tol={"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)},
    ),
    OpInfo(
        "std",
        ref=_zd(ref_std),
        sample_inputs=_samples(_moment_cases),
        check=_dtype_check(_real),
        tol={"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)},
    ),
    OpInfo(
        "var_mean",
        ref=_zd(ref_var_mean),
        sample_inputs=_samples(_moment_cases),
        check=_dtype_check(lambda d: (_real(d), _same(d))),
        tol={"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)},
    ),
    OpInfo(
        "std_mean",
        ref=_zd(ref_std_mean),
        sample_inputs=_samples(_moment_cases),
        check=_dtype_check(lambda d: (_real(d), _same(d))),
        tol={"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)},
    ),
    OpInfo("max", ref=ref_max, sample_inputs=_full_samples, check=_dtype_check(_same)),
    OpInfo("min", ref=ref_min, sample_inputs=_full_samples, check=_dtype_check(_same)),
    OpInfo(
        "max_dim",
        ref=_zd(ref_max_dim),
        sample_inputs=_dim_samples,
        check=_dtype_check(lambda d: (_same(d), ember.int64)),
    ),
    OpInfo(
        "min_dim",
        ref=_zd(ref_min_dim),
        sample_inputs=_dim_samples,
        check=_dtype_check(lambda d: (_same(d), ember.int64)),
    ),
    OpInfo(
        "max_other",
        ref=lambda a, b: np.maximum(_hi(a), _hi(b)),
        sample_inputs=_binary_samples,
        check=_dtype_check(_same),
    ),
    OpInfo(
        "min_other",
        ref=lambda a, b: np.minimum(_hi(a), _hi(b)),
        sample_inputs=_binary_samples,
        check=_dtype_check(_same),
    ),
    OpInfo("amax", ref=_zd(ref_amax), sample_inputs=_amax_samples, check=_dtype_check(_same)),
    OpInfo("amin", ref=_zd(ref_amin), sample_inputs=_amax_samples, check=_dtype_check(_same)),
    OpInfo("aminmax", ref=_zd(ref_aminmax), sample_inputs=_opt_dim_samples, check=_dtype_check(_same)),
    OpInfo("argmax", ref=_zd(ref_argmax), sample_inputs=_opt_dim_samples, check=_dtype_check(lambda d: ember.int64)),
    OpInfo("argmin", ref=_zd(ref_argmin), sample_inputs=_opt_dim_samples, check=_dtype_check(lambda d: ember.int64)),
    OpInfo(
        "all",
        ref=_zd(_logic_ref(np.all)),
        sample_inputs=_samples(make=_sparse),
        check=_dtype_check(lambda d: ember.uint8 if d == "uint8" else ember.bool),
    ),
    OpInfo(
        "any",
        ref=_zd(_logic_ref(np.any)),
        sample_inputs=_samples(make=_sparse),
        check=_dtype_check(lambda d: ember.uint8 if d == "uint8" else ember.bool),
    ),
    OpInfo(
        "count_nonzero",
        ref=_zd(ref_count_nonzero),
        sample_inputs=_samples(_count_cases, make=_sparse),
        check=_dtype_check(lambda d: ember.int64),
    ),
    OpInfo(
        "logsumexp",
        ref=_zd(ref_logsumexp),
        sample_inputs=_samples(_lse_cases, make=_lse_make),
        check=_dtype_check(lambda d: ember.float32 if d in ("bool",) + INTS else getattr(ember, d)),
        tol={"float16": (4e-3, 4e-3), "bfloat16": (2e-2, 5e-2)},
    ),
    OpInfo(
        "norm",
        ref=_zd(ref_norm),
        sample_inputs=_norm_samples,
        check=_norm_check,
        tol={"float16": (4e-3, 4e-3), "bfloat16": (2e-2, 2e-2)},
    ),
    OpInfo(
        "norm_p",
        ref=_zd(ref_norm),
        sample_inputs=_norm_p_samples,
        check=_norm_check,
        tol={"float16": (4e-3, 4e-3), "bfloat16": (2e-2, 2e-2)},
    ),
)

__all__ = ["COMPLEX"]
