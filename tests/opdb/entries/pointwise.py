"""OpInfos for core/ops/pointwise.yaml. allclose and equal return Python bools, which the generic
harness cannot compare: they are tested in tests/core/test_pointwise_extra.py."""
import numpy as np

import ember
from ember.testing.opinfo import OpInfo, Sample, random_array, register


def _clamp(a, min=None, max=None):
    if min is not None:
        a = np.maximum(a, min)
    if max is not None:
        a = np.minimum(a, max)
    return a


def _kind_or(fn, default):
    def ref(a):
        if a.dtype.kind in "fc":
            return fn(a)
        return np.full(a.shape, default)
    return ref


def _isclose(a, b, **kw):
    if a.dtype == np.bool_:
        a, b = a.astype(np.float64), b.astype(np.float64)
    return np.isclose(a, b, **kw)


def _nan_to_num(a, **kw):
    return np.nan_to_num(a, **kw) if a.dtype.kind in "fc" else a


def _where_samples(dtype, rng):
    def arr(shape):
        return np.asarray(random_array(dtype, shape, rng, (-3, 3), (-9, 10)))

    def cond(shape):
        return ember.tensor(np.asarray(rng.random(shape) < 0.5))

    scalar = True if dtype == "bool" else (2.5 if dtype.startswith(("float", "bfloat", "complex")) else 3)
    return [
        Sample((cond((3, 4)), arr((3, 4)), arr((3, 4)))),
        Sample((cond((3, 1)), arr((1, 4)), arr((4,)))),       # all three broadcast
        Sample((cond((2, 3)), arr((2, 3)), scalar)),           # Python number for other
        Sample((cond((2, 3)), scalar, arr((2, 3)))),           # and for input
        Sample((cond(()), arr(()), arr(()))),
        Sample((cond((0, 3)), arr((0, 3)), arr((0, 3)))),
    ]


register(
    OpInfo("clamp", ref=_clamp, kwargs=[{"min": 1, "max": 5}, {"min": 2}, {"max": 3}, {"min": 4, "max": 2}]),
    OpInfo("clip", ref=_clamp, kwargs=[{"min": 1, "max": 5}, {"max": 3}]),
    OpInfo("clamp_min", ref=np.maximum),
    OpInfo("clamp_max", ref=np.minimum),
    OpInfo("where", ref=np.where, sample_inputs=_where_samples),
    OpInfo("lerp", ref=lambda a, b, w: a + w * (b - a)),
    OpInfo("nan_to_num", ref=_nan_to_num, kwargs=[{}, {"nan": 1.5, "posinf": 100.0, "neginf": -100.0}]),
    OpInfo("isnan", ref=_kind_or(np.isnan, False)),
    OpInfo("isinf", ref=_kind_or(np.isinf, False)),
    OpInfo("isposinf", ref=_kind_or(np.isposinf, False)),
    OpInfo("isneginf", ref=_kind_or(np.isneginf, False)),
    OpInfo("isfinite", ref=_kind_or(np.isfinite, True)),
    OpInfo("isreal", ref=np.isreal),
    OpInfo("isclose", ref=_isclose,
           kwargs=[{}, {"rtol": 0.1, "atol": 0.5}, {"atol": 1.0, "equal_nan": True}, {"rtol": 0.0, "atol": 0.0}]),
    OpInfo("allclose", extra={"tested_in": "tests/core/test_pointwise_extra.py"}),
    OpInfo("equal", extra={"tested_in": "tests/core/test_pointwise_extra.py"}),
)
