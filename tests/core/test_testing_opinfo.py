"""ember.testing's OpInfo machinery, as a domain package uses it: declare an OpInfo for an op against
its own reference and check the op with check_against_reference; it fails, naming the sample, when
the op and the reference disagree. Loading it is lazy: `import ember` does not import it."""
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember.testing import OpInfo, Sample, check_against_reference


def _softplus_samples(dtype, rng):
    x = rng.uniform(-30, 30, size=(4, 5))
    return [Sample((x,)), Sample((x,), {"beta": 2.0}), Sample((x[:, :1],), {"beta": 0.5, "threshold": 3.0})]


def _softplus_ref(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


SOFTPLUS = OpInfo("nn.functional.softplus", ref=_softplus_ref, sample_inputs=_softplus_samples)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_an_op_against_its_reference(dtype):
    assert check_against_reference(SOFTPLUS, ember.nn.functional.softplus, dtype) == 3


def test_a_wrong_op_fails_naming_the_sample():
    with pytest.raises(AssertionError, match=r"nn\.functional\.softplus\(float64\) sample \{'beta': 2\.0\}"):
        check_against_reference(SOFTPLUS, lambda x, beta=1.0, threshold=20.0:
                                ember.nn.functional.softplus(x, 1.0, threshold), "float64")


def test_an_opinfo_without_reference_is_refused():
    with pytest.raises(ValueError, match="needs sample_inputs and ref"):
        check_against_reference(OpInfo("x"), ember.exp, "float32")


def test_the_opinfo_machinery_loads_lazily():
    code = "import sys, ember; import ember.testing; assert 'ember.testing.opinfo' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
    assert ember.testing.OpInfo is OpInfo
