"""OpInfos for ops written in Python over the op database's ops (stft, the functional RNNs, ...): they have no
YAML entry, so they carry what the YAML would say in extra: python_level (the coverage test's stale check
skips them), their dtypes, whether the Tensor method exists and whether gradients are checked.
tests/opdb/test_python_level.py runs them."""
from __future__ import annotations

from ember.testing.opinfo import OpInfo


def python_opinfo(name, ref, sample_inputs, dtypes=("float32", "float64"), method=False, grad=True, grad_samples=None,
                  **kwargs):
    """name is the public path under ember ('stft', 'nn.functional.embedding_bag'); grad_samples(rng) gives small
    float64 samples for gradcheck (default: the float64 sample inputs)."""
    extra = {"python_level": True, "dtypes": tuple(dtypes), "method": method, "grad": grad,
             "grad_samples": grad_samples, **kwargs.pop("extra", {})}
    return OpInfo(name, ref=ref, sample_inputs=sample_inputs, extra=extra, **kwargs)
