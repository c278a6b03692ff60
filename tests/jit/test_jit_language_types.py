"""Scripted vs eager for tensor indexing and item assignment, Optional refinement (through `and`, `or`,
`not`, early return and isinstance), NamedTuple, raise of builtin exceptions with f-string messages, and
@ember.jit.unused."""
from typing import List, NamedTuple, Optional

import numpy as np
import pytest

import ember


def indexing(x, i):
    return [x[1:, ::2], x[..., None, 0], x[-1], x[:, 1:3][0, None], x[i], x[:, i], x[None, ..., -1], x[-2:, -3::2],
            x[5:], x[:, -100:2], x[1, 2:0]]


def test_tensor_indexing_matches_eager():
    x = ember.arange(12.0).reshape(3, 4)
    i = ember.tensor([[0, 2], [1, 1]])
    got, want = ember.jit.script(indexing)(x, i), indexing(x, i)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def item_assignment(x, v):
    y = x.clone()
    y[0] = 5.0
    y[1:, 2] = v
    y[..., -1] += 1.0
    return y


def test_tensor_item_assignment_matches_eager():
    x = ember.arange(9.0).reshape(3, 3)
    v = ember.tensor([-1.0, -2.0])
    np.testing.assert_array_equal(ember.jit.script(item_assignment)(x, v).numpy(), item_assignment(x, v).numpy())


def tensor_step_must_be_positive(x):
    return x[::-1]


def test_negative_tensor_step_raises_value_error_as_eager():
    with pytest.raises(ValueError, match="step must be greater than zero"):
        ember.jit.script(tensor_step_must_be_positive)(ember.ones(3))


def refine(x: Optional[int], y: Optional[int]) -> int:
    if x is not None and x > 2:
        return x
    if y is None or y < 0:
        return -1
    if not isinstance(x, int):
        return y * 100
    return x + y


@pytest.mark.parametrize("x,y", [(3, None), (1, None), (1, 4), (None, 5), (None, -3)])
def test_optional_refinement(x, y):
    assert ember.jit.script(refine)(x, y) == refine(x, y)


def static_isinstance(x: int, s: str, xs: List[int]) -> List[bool]:
    return [isinstance(x, int), isinstance(x, float), isinstance(s, (int, str)), isinstance(xs, list),
            isinstance(xs, List[int]), isinstance(x, str)]


def test_isinstance_of_static_types():
    # isinstance(xs, List[int]) is TorchScript's (eager Python refuses subscripted generics): written out
    assert ember.jit.script(static_isinstance)(1, "a", [1]) == [True, False, True, True, True, False]


class Pair(NamedTuple):
    a: int
    b: float


def namedtuples(x: int) -> Pair:
    p = Pair(x, b=2.0)
    return Pair(p.a + 1, p.b * p[0])


def test_namedtuple_fields_and_result_class():
    got = ember.jit.script(namedtuples)(3)
    assert isinstance(got, Pair) and got == namedtuples(3)


def raises(x: int, kind: int) -> int:
    if x > 1:
        if kind == 0:
            raise ValueError(f"x too big: {x}")
        if kind == 1:
            raise IndexError("index " + str(x))
        raise TypeError("wrong")
    return x


@pytest.mark.parametrize("kind,exc,msg", [(0, ValueError, "x too big: 5"), (1, IndexError, "index 5"),
                                          (2, TypeError, "wrong")])
def test_raise_surfaces_as_the_python_exception(kind, exc, msg):
    s = ember.jit.script(raises)
    assert s(1, kind) == 1
    with pytest.raises(exc, match=msg):
        s(5, kind)


@ember.jit.unused
def not_for_scripting(x: int) -> int:
    return x + eval("1")  # Python the compiler never sees


def uses_unused(x: int, flag: bool) -> int:
    if flag:
        return not_for_scripting(x)
    return x


def test_unused_function_raises_only_when_reached():
    s = ember.jit.script(uses_unused)
    assert s(3, False) == 3
    with pytest.raises(RuntimeError, match="not_for_scripting is marked @ember.jit.unused"):
        s(3, True)
    assert uses_unused(3, True) == 4  # eager code still runs it


def find(xs: List[int], t: int) -> int:
    for i, x in enumerate(xs):
        if x == t:
            return i
    return -1


def nested_return(n: int) -> Optional[List[int]]:
    for i in range(n):
        j = 0
        while j < i:
            if i * j == 6:
                return [i, j]
            j += 1
    return None


def while_true(x) -> int:
    k = 0
    while True:
        k += 1
        if k * k > int(x):
            return k


@pytest.mark.parametrize("fn,args", [(find, ([1, 5, 7], 7)), (find, ([1], 3)), (nested_return, (5,)),
                                     (nested_return, (2,)), (while_true, (ember.tensor(50),))])
def test_return_inside_loops(fn, args):
    assert ember.jit.script(fn)(*args) == fn(*args)
