"""Programs the script compiler rejects: each error has the right type and names the file, the line
and column of the offending code and shows that source line, as TorchScript's errors do."""
import inspect
import re
from typing import List, Optional, Tuple

import pytest

import ember
import ember.jit
from ember.jit import NotSupportedError, ScriptTypeError


def tensor_plus_str(x):
    y = x + "a"
    return y


def branch_types_differ(x, n: int):
    if n > 0:
        y = 1
    else:
        y = x
    return y


def undefined_name(x):
    return undefined_thing(x)  # noqa: F821


def nested_comprehension(x):
    return [i + j for i in range(3) for j in range(2)]


def recursive(n: int) -> int:
    return recursive(n - 1)


def with_statement(x):
    with open("f") as f:  # noqa: F841
        pass
    return x


def bad_keyword(x):
    return ember.add(x, x, bogus=1)


def wrong_return_type(x) -> int:
    return x


def loop_changes_type(n: int):
    v = 0
    for i in range(n):
        v = 0.5
    return v


def return_in_loop(n: int):
    for i in range(n):
        return i
    return 0


def optional_used_unrefined(x: Optional[int]) -> int:
    return x + 1


def raise_custom(x):
    raise NotAnException("x")  # noqa: F821


def tuple_by_variable(t: Tuple[int, str], i: int) -> int:
    return t[i]


def star_args(*xs):
    return xs


def mixed_list(x, n: int):
    return [x, n]


def unpack_wrong_count(x):
    a, b, c = (x, x)
    return a, b, c


REJECTED = [
    (tensor_plus_str, ScriptTypeError, "unsupported operand types for Add: Tensor and str", 'x + "a"'),
    (branch_types_differ, ScriptTypeError, "variable 'y' has type int in one branch and Tensor in the other",
     "if n > 0:"),
    (undefined_name, ScriptTypeError, "undefined value undefined_thing", "undefined_thing(x)"),
    (nested_comprehension, NotSupportedError, "a comprehension with more than one for is not supported",
     "[i + j for i in range(3) for j in range(2)]"),
    (recursive, NotSupportedError, "recursive calls are not supported: recursive calls itself", "recursive(n - 1)"),
    (with_statement, NotSupportedError, "a with statement other than", 'with open("f") as f:'),
    (bad_keyword, ScriptTypeError, "unexpected keyword argument 'bogus'", "ember.add(x, x, bogus=1)"),
    (wrong_return_type, ScriptTypeError, "annotated to return int, but it returns Tensor", "def wrong_return_type"),
    (loop_changes_type, ScriptTypeError, "variable 'v' changes type in the loop: int before it, float", "for i in"),
    (return_in_loop, NotSupportedError, "return inside a loop of a function without a return annotation",
     "for i in range(n):"),
    (optional_used_unrefined, ScriptTypeError, "unsupported operand types for Add: Optional\\[int\\] and int",
     "x + 1"),
    (raise_custom, ScriptTypeError, "undefined value NotAnException", "NotAnException"),
    (tuple_by_variable, ScriptTypeError, "a tuple can only be indexed or sliced by int constants", "t[i]"),
    (star_args, NotSupportedError, "\\*args is not supported", "def star_args(*xs):"),
    (mixed_list, ScriptTypeError, "list elements must all have one type; found Tensor and int", "[x, n]"),
    (unpack_wrong_count, ScriptTypeError, "cannot unpack a tuple of 2 values into 3", "a, b, c"),
]


@pytest.mark.parametrize("fn,exc,msg,code", REJECTED, ids=[r[0].__name__ for r in REJECTED])
def test_rejected_program_names_its_line(fn, exc, msg, code):
    lines, first = inspect.getsourcelines(fn)
    offset = next(i for i, line in enumerate(lines) if code in line)
    with pytest.raises(exc) as info:
        ember.jit.script(fn)
    text = str(info.value)
    assert re.search(msg, text), text
    assert f'File "{__file__}", line {first + offset}, column ' in text, text
    assert code in text.splitlines()[-2], text  # the source line, then the marker line
    assert text.splitlines()[-1].rstrip().endswith("<--- HERE")


def test_marker_column_points_at_the_expression():
    with pytest.raises(ScriptTypeError) as info:
        ember.jit.script(tensor_plus_str)
    *_, where, source, marker = str(info.value).splitlines()
    col = int(re.search(r"column (\d+)", where).group(1))
    assert source.index('x + "a"') == marker.index("~") == col - 1 + 4  # four spaces of indent in the report


def test_compile_errors_are_runtime_errors_as_in_pytorch():
    assert issubclass(ScriptTypeError, RuntimeError)
    assert issubclass(NotSupportedError, ember.jit.FrontendError)


def test_non_function_is_refused():
    with pytest.raises(NotSupportedError, match="can only compile functions"):
        ember.jit.script(42)


def test_unsupported_annotation_names_the_argument():
    def f(x: dict) -> int:
        return 1

    with pytest.raises(ScriptTypeError, match="unsupported annotation .* for argument 'x'"):
        ember.jit.script(f)


def test_unknown_tensor_method_is_named():
    def f(x):
        return x.no_such_method()

    with pytest.raises(ScriptTypeError, match="unknown op no_such_method"):
        ember.jit.script(f)


def test_overload_mismatch_lists_each_candidate():
    def f(x, d: List[int]):
        return ember.max(x, d)

    with pytest.raises(ScriptTypeError) as info:
        ember.jit.script(f)
    text = str(info.value)
    assert "arguments for call of max are not valid (got Tensor, List[int])" in text
    assert "  max: takes 1 positional arguments, got 2" in text
    assert "  max_dim: argument 'dim' expects int, got List[int]" in text
