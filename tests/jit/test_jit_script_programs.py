"""Scripted programs against the same functions run eagerly (plain Python is the reference): control
flow, loops with break/continue, early returns, Optionals, lists and tuples, numbers, ops with
overloads and keyword arguments, inlined calls."""
from typing import List, Optional, Tuple

import numpy as np
import pytest

import ember
import ember.jit
import ember.nn.functional as F


def same(a, b):
    """Equal results: tensors elementwise (as NumPy arrays), sequences item by item, numbers exactly."""
    if isinstance(a, ember.Tensor):
        assert isinstance(b, ember.Tensor)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)
        assert a.dtype == b.dtype
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    else:
        assert type(a) is type(b) and a == b, (a, b)


def scaled_plus_one(a, b: float = 2.0):
    return a * b + 1


def branches(x, y):
    a, b = x + y, x - y
    if bool((a > 0).all()):
        return a
    elif b.sum() > 0:
        return b
    else:
        return a * b


def list_max(xs: List[int]) -> int:
    best = xs[0]
    for v in xs:
        if v > best:
            best = v
        elif v < 0:
            continue
    return best + len(xs) + min(3, 4) + max(1, 2, 7)


def while_with_call(x, n: int) -> Tuple[ember.Tensor, int]:
    count = 0
    while count < n:
        x = ember.tanh(x) + scaled_plus_one(x)
        count += 1
    return x, count


def optional_add(x: Optional[ember.Tensor], y):
    if x is not None:
        y = y + x
    return y.sum(dim=0, keepdim=True)


def early_none_return(x: Optional[ember.Tensor]) -> int:
    if x is None:
        return -1
    return x.dim() + x.numel()


def appended(x):
    out: List[ember.Tensor] = []
    for i in range(0, 6, 2):
        out.append(x * i)
    return ember.stack(out, 0)


def number_arith(a: int, b: int) -> float:
    return a / b + a // b + a % b + 2 ** 3 + -a * 1.5


def float_mix(a: float, b: int) -> float:
    c = a * b - b // 3
    if c > 2.5 and b != 0 or a < 0:
        c = c / 2
    return c


def ops_and_shapes(x) -> Tuple[ember.Tensor, ember.Tensor, ember.Tensor, int, List[int], ember.Tensor]:
    v, idx = ember.max(x, 0)
    return F.softmax(x, dim=-1), v, idx, x.size(0), x.shape, x[1]


def nested_break(n: int) -> int:
    s = 0
    for i in range(n):
        for j in range(i):
            if j == 3:
                break
            s += i * j
    return s


def while_break_continue(k: int) -> int:
    total = 0
    i = 0
    while True:
        i += 1
        if i % 3 == 0:
            continue
        total += i
        if total > k:
            break
    return total * 10 + i


def tensor_loop(x) -> float:
    acc = 0.0
    for row in x:
        acc += float(row.sum())
    return acc


def chained(a: int, b: int, c: int) -> bool:
    return a < b <= c and not a == c


def conditional_expr(x, flag: bool):
    return x * 2 if flag else -x


def inplace_aug(x):
    y = x.clone()
    y += 1
    y *= x
    return y


def relu_inplace_flag(x):
    return F.relu(x, inplace=False) + ember.sigmoid(x)


def cast_builtins(x, f: float) -> Tuple[int, float, bool, int]:
    return int(f), float(x.sum()), bool(x.sum() > 0), abs(-3)


def raises_value_error(x, k: int):
    if k > 2:
        raise ValueError("k too big")
    assert k != 1, "k is one"
    return x + k


X = ember.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])

CASES = [
    (branches, (ember.tensor([1.0, 2.0]), ember.tensor([3.0, -1.0]))),
    (branches, (ember.tensor([-1.0, 2.0]), ember.tensor([-3.0, -5.0]))),
    (branches, (ember.tensor([-1.0, 2.0]), ember.tensor([-3.0, 5.0]))),
    (list_max, ([3, -1, 9, 2],)),
    (while_with_call, (ember.tensor([0.5]), 3)),
    (while_with_call, (ember.tensor([0.5]), 0)),
    (optional_add, (None, ember.ones(2, 3))),
    (optional_add, (ember.ones(3), ember.ones(2, 3))),
    (early_none_return, (None,)),
    (early_none_return, (X,)),
    (appended, (ember.tensor([1.0, -2.0]),)),
    (number_arith, (7, -2)),
    (number_arith, (-9, 4)),
    (float_mix, (1.5, 4)),
    (float_mix, (-1.0, 1)),
    (float_mix, (0.5, 1)),
    (ops_and_shapes, (X,)),
    (nested_break, (7,)),
    (while_break_continue, (10,)),
    (tensor_loop, (X,)),
    (chained, (1, 2, 2)),
    (chained, (2, 2, 3)),
    (chained, (1, 1, 1)),
    (conditional_expr, (X, True)),
    (conditional_expr, (X, False)),
    (inplace_aug, (X,)),
    (relu_inplace_flag, (X,)),
    (cast_builtins, (X, -2.7)),
    (raises_value_error, (X, 0)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_scripted_equals_eager(fn, args):
    same(ember.jit.script(fn)(*args), fn(*args))


def test_named_tuple_ops_return_plain_tuples():
    def f(x):
        return ember.max(x, dim=1)

    values, indices = ember.jit.script(f)(X)
    same(values, ember.tensor([3.0, 4.0]))
    same(indices, ember.tensor([2, 1]))


@pytest.mark.parametrize("k,exc,msg", [(3, ValueError, "k too big"), (1, AssertionError, "k is one")])
def test_raise_and_assert_raise_their_python_type(k, exc, msg):
    s = ember.jit.script(raises_value_error)
    with pytest.raises(exc, match=msg):
        s(X, k)


def test_integer_division_by_zero_raises_zero_division_error():
    def f(a: int, b: int) -> int:
        return a // b

    with pytest.raises(ZeroDivisionError):
        ember.jit.script(f)(1, 0)


def test_list_index_out_of_range_raises_index_error():
    def f(xs: List[int], i: int) -> int:
        return xs[i]

    s = ember.jit.script(f)
    assert s([4, 5], -1) == 5
    with pytest.raises(IndexError, match="list index out of range"):
        s([4, 5], 2)


def test_arguments_are_checked_against_the_annotations():
    s = ember.jit.script(list_max)
    with pytest.raises(TypeError, match="argument 'xs' expected a value of type 'List\\[int\\]', got str"):
        s("abc")
    with pytest.raises(TypeError, match="list_max\\(\\)"):
        s([1], [2])


def test_defaults_and_keywords_bind_as_in_python():
    def f(x, scale: float = 2.0, shift: int = 1):
        return x * scale + shift

    s = ember.jit.script(f)
    same(s(X), f(X))
    same(s(X, shift=5), f(X, shift=5))
    same(s(X, 0.5, 3), f(X, 0.5, 3))


def test_is_scripting_and_annotate():
    def f(x) -> List[int]:
        out = ember.jit.annotate(List[int], [])
        if ember.jit.is_scripting():
            out.append(1)
        else:
            out.append(2)
        return out

    assert f(X) == [2]
    assert ember.jit.script(f)(X) == [1]


def test_global_constants_are_baked_in():
    assert ember.jit.script(uses_global)(3) == 3 * SCALE


SCALE = 4


def uses_global(n: int) -> int:
    return n * SCALE


def test_script_of_a_script_function_is_itself():
    s = ember.jit.script(branches)
    assert ember.jit.script(s) is s
    assert s.schema == "branches(Tensor x, Tensor y) -> Tensor"


def test_gradients_flow_through_scripted_ops():
    x = ember.tensor([1.0, 2.0], requires_grad=True)

    def f(x):
        return (x * x + ember.sin(x)).sum()

    ember.jit.script(f)(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array([1.0, 2.0]) + np.cos([1.0, 2.0]), rtol=1e-6)


calls_seen = []


@ember.jit.ignore
def python_side(x, tag: str) -> Tuple[ember.Tensor, int]:
    calls_seen.append(tag)
    return x.numpy().sum() * ember.ones(1), len(tag)  # NumPy: not scriptable, so left to Python


def test_ignored_functions_run_in_python():
    def f(x, n: int) -> int:
        total = 0
        for i in range(n):
            t, k = python_side(x, "call")
            total += k + int(t)
        return total

    calls_seen.clear()
    s = ember.jit.script(f)
    assert "prim::PythonOp[name=\"python_side\"]" in s.graph
    assert s(X, 2) == 2 * (4 + 5) and calls_seen == ["call", "call"]


def test_errors_inside_ignored_functions_propagate():
    @ember.jit.ignore
    def boom(x):
        raise KeyError("from python")

    def f(x):
        return boom(x) + 1

    with pytest.raises(KeyError, match="from python"):
        ember.jit.script(f)(X)


def test_ignored_function_result_is_checked_against_its_annotation():
    @ember.jit.ignore
    def wrong(x) -> int:
        return "not an int"

    def f(x) -> int:
        return wrong(x)

    with pytest.raises(TypeError, match="the result of .*wrong expected a value of type 'int', got str"):
        ember.jit.script(f)(X)
