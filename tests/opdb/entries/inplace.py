"""OpInfos for core/ops/inplace.yaml. copy is only Tensor.copy_ (no function form for the generic
harness to call): tests/core/test_pytorch_parity.py covers it."""
import numpy as np

from ember.testing.opinfo import OpInfo, Sample, random_array, register


def _fill_samples(dtype, rng):
    def arr(shape):
        return random_array(dtype, shape, rng, (-3, 3), (-9, 10))

    number = True if dtype == "bool" else 3 if dtype in ("uint8", "int8", "int16", "int32", "int64") else \
        (1.5 - 2j if dtype.startswith("complex") else -2.5)
    return [
        Sample((arr((3, 4)), number)),
        Sample((arr(()), number)),
        Sample((arr((2, 0)), number)),
        Sample((arr((2, 3)), arr(()))),  # a 0-dim tensor value
    ]


def _fill(a, value):
    return np.full(np.shape(a), value, dtype=np.asarray(a).dtype)


register(
    OpInfo("fill", ref=_fill, sample_inputs=_fill_samples),
    OpInfo("copy"),
)
