"""OpInfos for core/ops/creation.yaml. Each sample names the dtype under test; references are
NumPy's factories (np.zeros, np.full, np.arange, np.linspace, np.logspace, np.eye) computed in
float64/complex128 for floating dtypes. Uninitialized ops (empty*) are checked on zero-size samples
here (shapes only) and on real sizes in tests/core/test_creation.py, which also covers meta."""
import numpy as np

import ember
from ember.testing.opinfo import COMPLEX, FLOATS, NP_DTYPE, OpInfo, Sample, register

NO_TENSOR_INPUT = {"meta": "no tensor input to move to meta: device='meta' is tested in tests/core/test_creation.py"}


def _ref_dtype(kwargs):
    """The NumPy dtype a reference is computed in: exact for bool/ints, widest for floats."""
    dt = kwargs.pop("dtype", None)
    name = repr(dt).split(".", 1)[1] if dt is not None else "float32"
    if name in FLOATS:
        return np.float64
    if name in COMPLEX:
        return np.complex128
    return NP_DTYPE[name]


def _value(dtype):
    """A fill value every dtype holds exactly."""
    if dtype == "bool":
        return True
    if dtype in FLOATS:
        return 2.5
    if dtype in COMPLEX:
        return 1.5 - 2j
    return 7


def _sizes(dtype, rng):
    return [Sample(args=(s,), kwargs={"dtype": getattr(ember, dtype)}) for s in [(2, 3), (4,), (), (2, 0, 3)]]


def _ref_filled(fill):
    def ref(size, **kwargs):
        return np.full(size, fill, dtype=_ref_dtype(kwargs))
    return ref


def _full_samples(dtype, rng):
    d = getattr(ember, dtype)
    return [Sample(args=((2, 3), _value(dtype)), kwargs={"dtype": d}),
            Sample(args=((5,), _value(dtype)), kwargs={"dtype": d}),
            Sample(args=((), _value(dtype)), kwargs={"dtype": d})]


def _empty_samples(dtype, rng):
    d = getattr(ember, dtype)
    return [Sample(args=((0,),), kwargs={"dtype": d}), Sample(args=((2, 0, 3),), kwargs={"dtype": d})]


def _like_samples(dtype, rng, with_value=False, empty=False):
    shapes = [(0,), (2, 0)] if empty else [(2, 3), (4,), (), (3, 1, 2)]
    out = []
    for s in shapes:
        a = np.asarray(rng.uniform(-3, 3, size=s) if dtype != "bool" else rng.random(s) < 0.5)
        args = (a, _value(dtype)) if with_value else (a,)
        out.append(Sample(args=args))
    # dtype given: it wins over the input's
    a = rng.uniform(-3, 3, size=(0, 2) if empty else (2, 2))
    out.append(Sample(args=(a, 3) if with_value else (a,), kwargs={"dtype": ember.float64}))
    return out


def _like_ref(fn):
    def ref(a, *rest, **kwargs):
        dt = _ref_dtype(kwargs) if "dtype" in kwargs else a.dtype
        return fn(np.asarray(a), *rest, dtype=dt)
    return ref


def _empty_strided_samples(dtype, rng):
    d = getattr(ember, dtype)
    return [Sample(args=((0, 3), (3, 1)), kwargs={"dtype": d}), Sample(args=((2, 0), (1, 2)), kwargs={"dtype": d})]


def _scalar_samples(dtype, rng):
    return [Sample(args=(_value(dtype),), kwargs={"dtype": getattr(ember, dtype)})]


def _arange_samples(dtype, rng):
    d = {"dtype": getattr(ember, dtype)}
    if dtype in FLOATS:
        return [Sample(args=(0, 1, 0.1), kwargs=d), Sample(args=(-1.0, 1.0, 0.25), kwargs=d),
                Sample(args=(5.0,), kwargs=d), Sample(args=(3, -2, -0.5), kwargs=d), Sample(args=(1, 1), kwargs=d)]
    out = [Sample(args=(10,), kwargs=d), Sample(args=(2, 20, 3), kwargs=d), Sample(args=(10, 0, -2), kwargs=d),
           Sample(args=(5, 5), kwargs=d)]
    if dtype != "uint8":
        out.append(Sample(args=(-7, 5, 4), kwargs=d))
    return out


def _arange_ref(*args, **kwargs):
    return np.arange(*args, dtype=_ref_dtype(kwargs))


def _linspace_samples(dtype, rng):
    d = {"dtype": getattr(ember, dtype)}
    if dtype in FLOATS:
        cases = [(0, 1, 5), (-3.0, 7.0, 11), (2, -2, 4), (1.5, 9.0, 1), (0, 1, 0), (-1e3, 1e3, 101)]
    elif dtype in COMPLEX:
        cases = [(0, 1 + 2j, 5), (-1j, 3.0, 4), (2 + 2j, 2 + 2j, 3), (1j, 0, 1)]
    elif dtype == "uint8":
        cases = [(0, 100, 11), (200, 0, 5), (7, 7, 3), (3, 9, 1)]
    else:
        cases = [(0, 100, 11), (-10, 10, 5), (20, -20, 9), (3, 9, 1), (0, 5, 0)]
    return [Sample(args=c, kwargs=d) for c in cases]


def _linspace_ref(start, end, steps, **kwargs):
    return np.linspace(start, end, steps, dtype=_ref_dtype(kwargs))


def _logspace_samples(dtype, rng):
    d = {"dtype": getattr(ember, dtype)}
    if dtype in FLOATS:
        cases = [((0, 2, 5), {}), ((-1, 1, 4), {"base": 2.0}), ((1.5, 1.5, 1), {}), ((0, 3, 0), {}),
                 ((2, -2, 9), {"base": 3.0})]
    elif dtype in COMPLEX:
        cases = [((0, 1, 4), {}), ((0, 1j, 5), {"base": 2.0}), ((1 + 1j, -1, 3), {})]
    elif dtype in ("uint8", "int8"):
        cases = [((0, 2, 3), {}), ((0, 6, 7), {"base": 2.0}), ((1, 1, 1), {})]
    else:
        cases = [((0, 3, 4), {}), ((0, 10, 11), {"base": 2.0}), ((2, 0, 3), {})]
    return [Sample(args=a, kwargs={**kw, **d}) for a, kw in cases]


def _logspace_ref(start, end, steps, base=10.0, **kwargs):
    dt = _ref_dtype(kwargs)
    wide = np.complex128 if np.dtype(dt).kind == "c" else np.float64
    return np.logspace(start, end, steps, base=base, dtype=wide).astype(dt)


def _eye_samples(dtype, rng):
    d = {"dtype": getattr(ember, dtype)}
    return [Sample(args=(3,), kwargs=d), Sample(args=(2, 4), kwargs=d), Sample(args=(4, 2), kwargs=d),
            Sample(args=(0,), kwargs=d), Sample(args=(1, 0), kwargs=d)]


def _eye_ref(n, m=None, **kwargs):
    return np.eye(n, m, dtype=_ref_dtype(kwargs))


register(
    OpInfo("empty", sample_inputs=_empty_samples, ref=_ref_filled(0), skips=NO_TENSOR_INPUT),
    OpInfo("zeros", sample_inputs=_sizes, ref=_ref_filled(0), skips=NO_TENSOR_INPUT),
    OpInfo("ones", sample_inputs=_sizes, ref=_ref_filled(1), skips=NO_TENSOR_INPUT),
    OpInfo("full", sample_inputs=_full_samples,
           ref=lambda size, v, **kw: np.full(size, v, dtype=_ref_dtype(kw)), skips=NO_TENSOR_INPUT),
    OpInfo("empty_strided", sample_inputs=_empty_strided_samples,
           ref=lambda size, stride, **kw: np.zeros(size, dtype=_ref_dtype(kw)), skips=NO_TENSOR_INPUT),
    OpInfo("scalar_tensor", sample_inputs=_scalar_samples,
           ref=lambda v, **kw: np.array(v, dtype=_ref_dtype(kw)), skips=NO_TENSOR_INPUT),
    OpInfo("empty_like", sample_inputs=lambda d, r: _like_samples(d, r, empty=True), ref=_like_ref(np.zeros_like)),
    OpInfo("zeros_like", sample_inputs=_like_samples, ref=_like_ref(np.zeros_like)),
    OpInfo("ones_like", sample_inputs=_like_samples, ref=_like_ref(np.ones_like)),
    OpInfo("full_like", sample_inputs=lambda d, r: _like_samples(d, r, with_value=True), ref=_like_ref(np.full_like)),
    OpInfo("arange", sample_inputs=_arange_samples, ref=_arange_ref, skips=NO_TENSOR_INPUT),
    OpInfo("linspace", sample_inputs=_linspace_samples, ref=_linspace_ref, skips=NO_TENSOR_INPUT),
    OpInfo("logspace", sample_inputs=_logspace_samples, ref=_logspace_ref, skips=NO_TENSOR_INPUT),
    OpInfo("eye", sample_inputs=_eye_samples, ref=_eye_ref, skips=NO_TENSOR_INPUT),
)
