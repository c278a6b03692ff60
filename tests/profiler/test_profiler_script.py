"""record_function inside scripted code (issue 27): the range is recorded by the C++ interpreter around
the body's op calls, nests as in eager code, shows in `.graph`/`.code`, and costs nothing to run
without a profile."""
import pytest

import ember
from ember.profiler import profile, record_function


@ember.jit.script
def _scaled_sum(x):
    with record_function("scaled"):
        y = x * 2
        with ember.autograd.profiler.record_function("inner"):
            z = y.sum()
    return z + 1


def test_scripted_record_function_ranges_nest_around_the_ops():
    x = ember.ones(4)
    with profile() as prof:
        out = _scaled_sum(x)
    assert out.item() == 9.0
    by_name = {e.name: e for e in prof.events()}
    scaled, inner = by_name["scaled"], by_name["inner"]
    assert inner.cpu_parent is scaled
    assert scaled.is_user_annotation
    assert "record_function_enter" in str(_scaled_sum.graph)
    assert "ember._C._record_function_enter" in _scaled_sum.code


def test_scripted_record_function_without_a_profile_and_refusals():
    assert _scaled_sum(ember.ones(2)).item() == 5.0
    with pytest.raises(Exception, match="record_function"):
        @ember.jit.script
        def bad(x):
            with open("f") as f:  # noqa: F841
                return x
    with pytest.raises(Exception, match="return, break or continue"):
        @ember.jit.script
        def early(x):
            with record_function("r"):
                return x
