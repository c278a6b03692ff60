"""Scripted vs eager (Python itself is the reference) for the language's containers and strings: list
methods and slicing, dicts, comprehensions, str methods, f-strings and str.format, zip/enumerate, for over
dicts, tuples and strings, `in`, item assignment, print."""
from typing import Dict, List, Tuple

import pytest

import ember


def same(fn, *args):
    assert ember.jit.script(fn)(*args) == fn(*args)


def list_methods(x: List[int]) -> List[int]:
    y = x[1:3] + x[::-1] + x[-2:] + x[5:1:-2]
    y.append(7)
    y.extend([1, 2])
    y.insert(0, 9)
    y.insert(-100, 8)
    y.remove(2)
    p = y.pop()
    q = y.pop(0)
    y.reverse()
    y.sort()
    z = y.copy()
    z.clear()
    y[1] = 40
    y[-1] += 5
    return y + [p, q, y.index(7), y.count(1), len(z)] + [3] * 2 + [int(5 in y), int(100 not in y)]


@pytest.mark.parametrize("x", [[1, 2, 3, 4, 5, 6, 7], [4, 1, 7, 2, 9, 2]])
def test_list_methods_slices_and_operators(x):
    same(list_methods, x)


def sort_desc(x: List[float]) -> List[float]:
    x.sort(reverse=True)
    return x


def test_sort_reverse():
    same(sort_desc, [1.5, -2.0, 3.25, 0.0])


def list_errors(x: List[int], which: int) -> int:
    if which == 0:
        x.remove(99)
    if which == 1:
        return x.index(99)
    if which == 2:
        return x.pop(10)
    return x[10]


@pytest.mark.parametrize("which,exc", [(0, ValueError), (1, ValueError), (2, IndexError), (3, IndexError)])
def test_list_errors_are_python_types(which, exc):
    with pytest.raises(exc):
        list_errors([1, 2], which)  # the reference raises it too
    with pytest.raises(exc):
        ember.jit.script(list_errors)([1, 2], which)


def dict_ops(k: str) -> Dict[str, int]:
    d = {"a": 1, "b": 2}
    d["c"] = 3
    d[k] = d.get(k, 0) + 10
    d["a"] += 100
    e: Dict[str, int] = {}
    e.update(d)
    x = e.pop("a")
    y = e.pop("zz", -7)
    n = 0
    for key in d:
        n += d[key]
    for key, v in d.items():
        n += v * len(key)
    total = 0
    for v in d.values():
        total += v
    d["n"] = n + x + y + len(d) + int("b" in d) + int("q" in d) + total + len(list(d.keys()))
    return d


@pytest.mark.parametrize("k", ["a", "zz"])
def test_dict_operations_and_order(k):
    got = ember.jit.script(dict_ops)(k)
    want = dict_ops(k)
    assert got == want and list(got) == list(want)  # insertion order kept


def dict_missing(d: Dict[int, float]) -> float:
    return d[3]


def test_dict_missing_key_raises_key_error():
    with pytest.raises(KeyError, match="3"):
        ember.jit.script(dict_missing)({1: 1.0})


def dict_of_tensors(x, y) -> Dict[str, ember.Tensor]:
    return {"sum": x + y, "prod": x * y}


def test_dict_of_tensors():
    x, y = ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0])
    got = ember.jit.script(dict_of_tensors)(x, y)
    assert list(got) == ["sum", "prod"]
    assert got["sum"].tolist() == [4.0, 6.0] and got["prod"].tolist() == [3.0, 8.0]


def comprehensions(n: int) -> Dict[int, List[int]]:
    xs = [i * i for i in range(n) if i % 2 == 0]
    i = 100  # the comprehension's variable does not leak into this one
    out = {i: [j for j in xs if j > i] for i in range(3)}
    out[i] = xs
    return out


def test_list_and_dict_comprehensions():
    same(comprehensions, 7)


def string_ops(s: str) -> List[str]:
    parts = s.split(",")
    out = [p.strip().upper() for p in parts if p]
    out.append("-".join(parts))
    out.append(s.replace("a", "b")[1:4] + s[-1] + s[::2])
    out.append(str(s.find("b")) + str(s.startswith("a,")) + str(s.endswith(" ")) + s.lower())
    out.append(" x y  z ".split()[1] + "a-b-c".split("-", 1)[1] + "..ab..".strip(".") + "  q".lstrip())
    if s < "b":
        out.append("lt")
    if "C" in s:
        out.append("has C")
    out.append("ab" * 3)
    for c in "hey":
        out.append(c)
    out.append(str(len(s)))
    return out


@pytest.mark.parametrize("s", ["a, b,,C ", "zz,y"])
def test_string_methods(s):
    same(string_ops, s)


def formatting(n: int, x: float, s: str) -> List[str]:
    return [f"{n} items, x={x:.2f} {s!r} {n:>4d}|{s:<5}|{x:e}|{n:04d}",
            "{} and {}".format(n, s), "{1}{0}{{}}".format(s, n), f"{x}|{-x:+.1f}|{x:%}",
            str(0.1) + str(1e20) + str(1e-5) + str(123456789.0) + str(True) + str([1, 2]) + str(None) + str(2.0),
            str((1, "a")) + str({"k": [1.5]})]


@pytest.mark.parametrize("n,x,s", [(3, 1.5, "it's"), (-12, 0.3333333, "ab"), (0, -2.0, "")])
def test_f_strings_and_format(n, x, s):
    same(formatting, n, x, s)


def tensor_in_fstring(x) -> str:
    return f"value: {x}"


def test_tensor_in_f_string_uses_the_tensors_text():
    x = ember.tensor([1.0, 2.0])
    assert ember.jit.script(tensor_in_fstring)(x) == f"value: {x}"


def iteration(a: List[int], b: List[str]) -> List[str]:
    out: List[str] = []
    for i, (x, y) in enumerate(zip(a, b)):
        out.append(f"{i}:{x}{y}")
    for k, x in enumerate(a, 10):
        out.append(str(k + x))
    t = (1, "a", 2.5)
    for v in t:  # unrolled: each field keeps its type
        out.append(str(v))
    return out


def test_zip_enumerate_and_tuple_loops():
    same(iteration, [1, 2, 3], ["x", "y"])


def tuple_slices(t: Tuple[int, str, float]) -> Tuple[str, float]:
    u = t[1:]
    return u[0] + str(t[-3]), u[1]


def test_tuple_slicing_by_constants():
    same(tuple_slices, (4, "q", 0.5))


def printing(x: int) -> int:
    print("value", x, [1.5], {"a": 1}, (2,), None, 0.25)
    return x


def test_print_writes_python_text(capfd):
    ember.jit.script(printing)(4)
    assert capfd.readouterr().out == "value 4 [1.5] {'a': 1} (2,) None 0.25\n"


def truthiness(s: str, xs: List[int], d: Dict[str, int]) -> int:
    n = 0
    if s:
        n += 1
    if xs:
        n += 10
    if not d:
        n += 100
    return n


@pytest.mark.parametrize("args", [("", [], {}), ("a", [1], {"k": 1})])
def test_containers_and_strings_test_as_python_does(args):
    same(truthiness, *args)
