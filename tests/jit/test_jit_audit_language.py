"""Language forms a PyTorch user writes that issue 22's audit found refused or wrong: signature type
comments (read when a function has no annotations, a method's without self), an Optional refined in one
branch and rebound in the other (`if x is None: x = 5` leaves an int), and sum() of a list of numbers.
The reference is the same function run eagerly, or TorchScript's documented message written out."""
from typing import List, Optional, Union

import pytest

import ember
import ember.nn as nn


def scale(x, n):
    # type: (Tensor, int) -> Tensor
    return x * n


def total(xs,  # type: List[int]
          start,  # type: Optional[int]
          ):
    # type: (...) -> int
    t = 0 if start is None else start
    for x in xs:
        t += x
    return t


def too_many(x, n):
    # type: (Tensor, int, int) -> Tensor
    return x


def unknown_name(x):
    # type: (NoSuchType) -> int
    return 1


class Shift(nn.Module):
    def forward(self, x, k):
        # type: (Tensor, int) -> Tensor
        return x + k


def test_signature_type_comments():
    s = ember.jit.script(scale)
    assert s.schema == "scale(Tensor x, int n) -> Tensor"
    assert s(ember.ones(2), 3).tolist() == [3.0, 3.0]
    t = ember.jit.script(total)
    assert t([1, 2, 3], None) == total([1, 2, 3], None) == 6
    assert t([1, 2, 3], 10) == 16
    assert ember.jit.script(Shift())(ember.zeros(2), 4).tolist() == [4.0, 4.0]


def test_bad_type_comments_name_the_def_line():
    with pytest.raises(RuntimeError, match=r"Number of type annotations \(3\) did not match the number of "
                                           r"function parameters \(2\)") as e:
        ember.jit.script(too_many)
    assert "test_jit_audit_language.py" in str(e.value) and "def too_many(x, n):" in str(e.value)
    with pytest.raises(RuntimeError, match="NoSuchType"):
        ember.jit.script(unknown_name)


def default_if_none(x: Optional[int]) -> int:
    if x is None:
        x = 5
    return x + 1


def rebound_in_else(x: Optional[int], y: int) -> int:
    if x is not None:
        pass
    else:
        x = y * 2
    r = x
    r += 1
    return r


def keeps_optional(x: Optional[int]) -> Optional[int]:
    if x is not None:
        x = x + 1  # the else branch holds None: x stays Optional after the if
    return x


def union_rebound(x: Union[int, str]) -> str:
    if isinstance(x, int):
        x = str(x * 2)
    return x + "!"


@pytest.mark.parametrize("fn,inputs", [
    (default_if_none, [(None,), (2,)]),
    (rebound_in_else, [(None, 4), (7, 4)]),
    (keeps_optional, [(None,), (3,)]),
    (union_rebound, [(3,), ("a",)]),
])
def test_refinement_kept_where_the_other_branch_rebinds(fn, inputs):
    s = ember.jit.script(fn)
    for args in inputs:
        assert s(*args) == fn(*args), (fn.__name__, args)


def test_refined_then_rebound_in_a_loop_and_elif():
    def pick(x: Optional[int], n: int) -> int:
        for i in range(n):
            if x is None:
                x = i
            elif x > 3:
                x = 3
            else:
                x = x + 2
        return 0 if x is None else x

    s = ember.jit.script(pick)
    for args in [(None, 0), (None, 3), (10, 2), (1, 5)]:
        assert s(*args) == pick(*args), args


def test_sum_of_number_lists():
    def sums(a: List[int], b: List[float], c: List[bool]):
        return sum(a), sum(b), sum(c)

    s = ember.jit.script(sums)
    assert s([1, -2, 30], [0.5, 0.25], [True, False, True]) == (29, 0.75, 2)
    out = s([], [], [])
    assert out == (0, 0.0, 0) and type(out[1]) is float  # TorchScript's sum.float starts at 0.0
    with pytest.raises(RuntimeError, match=r"sum\(\)"):
        ember.jit.script(lambda_free_sum_of_str)


def lambda_free_sum_of_str(xs: List[str]) -> str:
    return sum(xs)
