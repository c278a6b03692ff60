"""Union[...] and Any in scripted code: arguments and results of several types, refinement by isinstance and
`is None`, ember.jit.isinstance (item-by-item in eager code), and what is refused. Scripted results are
compared with the same functions run eagerly."""
from typing import Any, Dict, List, Optional, Union

import pytest

import ember


def _both(fn, *args):
    s = ember.jit.script(fn)(*args)
    e = fn(*args)
    assert s == e and type(s) is type(e)
    return s


def test_union_refined_by_isinstance():
    def f(x: Union[int, str]) -> str:
        if isinstance(x, int):
            return str(x + 1)
        return x + "!"

    assert _both(f, 3) == "4" and _both(f, "a") == "a!"


def test_union_with_none_refined_by_is_none():
    def f(x: Union[int, str, None]) -> int:
        if x is None:
            return -1
        if isinstance(x, str):
            return len(x)
        return x * 2

    assert [_both(f, v) for v in (None, "abc", 7)] == [-1, 3, 14]


def test_union_result_and_tensor_member():
    def f(x: Union[ember.Tensor, List[int]], n: int) -> Union[ember.Tensor, int]:
        if isinstance(x, ember.Tensor):
            return x * n
        return sum_list(x) * n

    def sum_list(xs: List[int]) -> int:
        s = 0
        for v in xs:
            s += v
        return s

    sf = ember.jit.script(f)
    assert sf([1, 2, 3], 2) == 12
    assert sf(ember.tensor([1.0, 2.0]), 3).tolist() == [3.0, 6.0]


def test_union_arguments_are_checked():
    def f(x: Union[int, str]) -> int:
        return 0

    with pytest.raises(TypeError, match=r"Union\[int, str\]"):
        ember.jit.script(f)(1.5)


def test_any_passes_values_through_and_isinstance_refines():
    def f(x: Any) -> Any:
        if ember.jit.isinstance(x, List[str]):
            return [s + "." for s in x]
        elif ember.jit.isinstance(x, List[List[int]]):
            return [len(r) for r in x]
        elif ember.jit.isinstance(x, int):
            return x + 1
        return x

    for v in (["a", "b"], [[1], [2, 3]], 4, "s", None):
        assert _both(f, v) == f(v)


def test_jit_isinstance_in_eager_code_checks_items():
    assert ember.jit.isinstance([1, 2], List[int]) and not ember.jit.isinstance([1, "a"], List[int])
    assert not ember.jit.isinstance([True], List[int]) and ember.jit.isinstance([], List[str])
    assert ember.jit.isinstance({"a": [1]}, Dict[str, List[int]]) and not ember.jit.isinstance({"a": 1}, Dict[str, str])
    assert ember.jit.isinstance(None, Optional[int]) and ember.jit.isinstance("x", Union[int, str])


def test_declared_union_variable_takes_each_member():
    def f(flag: bool) -> str:
        v: Union[int, str] = 0
        if flag:
            v = "yes"
        if isinstance(v, str):
            return v
        return str(v)

    assert _both(f, True) == "yes" and _both(f, False) == "0"


def test_union_annotation_in_graph_text():
    def f(x: Union[int, str]) -> Union[int, str]:
        return x

    assert "Union[int, str]" in ember.jit.script(f).graph


def test_refinement_ends_with_its_branch():
    def f(x: Union[int, str], n: int) -> int:
        if isinstance(x, int):
            n += x
        if isinstance(x, str):
            n += len(x)
        return n

    assert _both(f, 3, 1) == 4 and _both(f, "ab", 1) == 3
