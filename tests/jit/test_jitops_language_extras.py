"""Ordinary Python that PyTorch's script compiles and ember's did not: sorted(list), dict.setdefault, str.zfill/
ljust/rjust/center/isdigit/isalpha/isalnum/isspace, printf-style `%` formatting with TorchScript's specifiers,
Tensor.type(dtype), and `return t.tolist()` typed by the return annotation. Scripted results equal the same function
run by Python (the reference); refused forms raise PyTorch's messages."""
from typing import Dict, List

import pytest

import ember


def containers(xs: List[int], names: List[str], d: Dict[str, int]) -> List[str]:
    a = sorted(xs)
    b = sorted(names)
    first = d.setdefault("k", 4)
    second = d.setdefault("k", 9)
    return [str(a), str(b), str(xs), str(first), str(second), str(len(d))]


def strings(s: str, n: int, x: float) -> List[str]:
    return ["%d items of %s" % (n, s), "%f|%s|%d|%e|%E|%i%%" % (x, s, n, x, x, n), "%s" % s, "%d" % x,
            "{%s}" % s, s.zfill(6), s.zfill(1), s.ljust(6, "*"), s.rjust(7), s.center(8, "."), s.center(7),
            s.center(9, "-"), str(s.isdigit()), str("12".isdigit()), str("".isdigit()), str("a b".isspace()),
            str(" \t\n".isspace()), str("ab1".isalnum()), str("ab".isalpha()), str("a1".isalpha())]


def as_list(t: ember.Tensor) -> List[int]:
    return t.type(ember.int64).tolist()


@pytest.mark.parametrize("xs,names", [([3, 1, 2, 3], ["b", "a", "c"]), ([], [])])
def test_sorted_and_setdefault(xs, names):
    d = {"a": 1}
    assert ember.jit.script(containers)(xs, names, dict(d)) == containers(xs, names, dict(d))


@pytest.mark.parametrize("s", ["ab", "12", "", "hello world"])
def test_str_methods_and_percent_format(s):
    assert ember.jit.script(strings)(s, 65, 3.14159) == strings(s, 65, 3.14159)


def test_tensor_type_and_tolist_by_return_annotation():
    t = ember.tensor([1.5, 2.5, -3.7])
    got = ember.jit.script(as_list)(t)
    assert got == [1, 2, -3] and all(type(v) is int for v in got)


def test_refused_forms_name_the_problem():
    def width(n: int) -> str:
        return "%5d" % n

    def extra(n: int) -> str:
        return "%d" % (n, n)  # noqa: F507  (the mistake under test)

    def reverse(xs: List[int]) -> List[int]:
        return sorted(xs, reverse=True)

    def fill(s: str) -> str:
        return s.ljust(5, "ab")

    with pytest.raises(RuntimeError, match="The specifier %5 is not supported in TorchScript format strings"):
        ember.jit.script(width)
    with pytest.raises(RuntimeError, match="Too many arguments for format string"):
        ember.jit.script(extra)
    with pytest.raises(ember.jit.NotSupportedError, match="keyword arguments to sorted"):
        ember.jit.script(reverse)
    with pytest.raises(TypeError, match="The fill character must be exactly one character long"):
        ember.jit.script(fill)("x")
