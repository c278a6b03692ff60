"""OpInfos for core/ops/complex.yaml. View semantics of real/imag, the Tensor.real/.imag
properties and the error cases are in tests/core/test_pointwise_extra.py."""
import numpy as np

from ember.testing.opinfo import OpInfo, Sample, random_array, register


def _arrays(dtype, rng, shapes=((3, 4), (), (0, 2), (2, 1, 3))):
    return [Sample((np.asarray(random_array(dtype, s, rng, (-3, 3), (-9, 10))),)) for s in shapes]


def _angle(a):
    # integers give the default float dtype (NumPy would pick float16 for int8)
    return np.angle(a.astype(np.float64)).astype(np.float32) if a.dtype.kind in "biu" else np.angle(a)


def _pair_samples(dtype, rng):
    def arr(shape, lo, hi):
        return np.asarray(random_array(dtype, shape, rng, (lo, hi), (0, 1)))

    return [
        Sample((arr((3, 4), 0, 3), arr((3, 4), -np.pi, np.pi))),
        Sample((arr((3, 1), 0, 3), arr((4,), -np.pi, np.pi))),   # broadcast
        Sample((arr((), 0, 3), arr((), -np.pi, np.pi))),
        Sample((arr((0, 2), 0, 3), arr((0, 2), -np.pi, np.pi))),
    ]


def _not_complex(a):
    return np.conj(a) if a.dtype.kind == "c" else a


register(
    OpInfo("real", ref=np.real, sample_inputs=_arrays),
    OpInfo("imag", ref=np.imag, sample_inputs=_arrays),
    OpInfo("conj", ref=_not_complex),
    OpInfo("conj_physical", ref=_not_complex),
    OpInfo("angle", ref=_angle, sample_inputs=_arrays),
    OpInfo("polar", ref=lambda r, t: r * np.cos(t) + 1j * (r * np.sin(t)), sample_inputs=_pair_samples),
    OpInfo("complex", ref=lambda re, im: re + 1j * im, sample_inputs=_pair_samples),
)
