"""Programs using the containers, strings and indexing the script compiler refuses: each error says why and
names the file, line and column with the source line, as TorchScript's do."""
import inspect
import re
from typing import Dict, List, Tuple

import pytest

import ember
from ember.jit import NotSupportedError, ScriptTypeError


def dict_mixed_keys(x: int):
    d = {"a": 1, 2: 3}
    return d


def sort_tensors(xs: List[ember.Tensor]):
    xs.sort()
    return xs


def append_wrong_type(xs: List[int]):
    xs.append("a")
    return xs


def unknown_dict_method(d: Dict[str, int]) -> int:
    return d.popitem()[1]


def unknown_str_method(s: str) -> str:
    return s.title()


def computed_format_spec(x: float, w: int) -> str:
    return f"{x:{w}}"


def separated_tensor_indices(x, i, j):
    return x[i, :, j]


def two_ellipses(x):
    return x[..., 0, ...]


def tuple_index_out_of_range(t: Tuple[int, int]) -> int:
    return t[5]


def contains_wrong_type(xs: List[str]) -> bool:
    return 1 in xs


def break_in_tuple_loop(t: Tuple[int, str]) -> int:
    for v in t:
        break
    return 0


def zip_over_tuple(xs: List[int], t: Tuple[int, int]) -> int:
    n = 0
    for a, b in zip(xs, t):
        n += a
    return n


def assign_into_str(s: str) -> str:
    s[0] = "a"
    return s


def dict_key_wrong_type(d: Dict[str, int]) -> int:
    return d[1]


def list_index_by_str(xs: List[int]) -> int:
    return xs["a"]


REJECTED = [
    (dict_mixed_keys, ScriptTypeError, "dict keys must all have one type; found str and int", '{"a": 1, 2: 3}'),
    (sort_tensors, NotSupportedError, "sorting a List\\[Tensor\\] is not supported", "xs.sort()"),
    (append_wrong_type, ScriptTypeError, "list.append\\(\\) expects a int, got a str", 'xs.append("a")'),
    (unknown_dict_method, NotSupportedError, "the method 'popitem' of a Dict\\[str, int\\]", "d.popitem"),
    (unknown_str_method, NotSupportedError, "the method 'title' of a str is not supported", "s.title()"),
    (computed_format_spec, NotSupportedError, "a computed format spec is not supported", 'f"{x:{w}}"'),
    (separated_tensor_indices, NotSupportedError, "tensor indices separated by other indices", "x[i, :, j]"),
    (two_ellipses, ScriptTypeError, "an index can only have a single ellipsis", "x[..., 0, ...]"),
    (tuple_index_out_of_range, ScriptTypeError, "tuple index 5 out of range for a tuple of 2 values", "t[5]"),
    (contains_wrong_type, ScriptTypeError, "cannot test whether a int is in a List\\[str\\]", "1 in xs"),
    (break_in_tuple_loop, NotSupportedError, "break, continue or return in a loop over a tuple", "for v in t:"),
    (zip_over_tuple, NotSupportedError, "zip\\(\\) over tuples or modules is not supported", "zip(xs, t)"),
    (assign_into_str, NotSupportedError, "item assignment on a str is not supported", 's[0] = "a"'),
    (dict_key_wrong_type, ScriptTypeError, "a Dict\\[str, int\\] cannot be indexed by a int", "d[1]"),
    (list_index_by_str, ScriptTypeError, "a List\\[int\\] can only be indexed by an int, got str", 'xs["a"]'),
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
    assert code in text.splitlines()[-2], text
    assert text.splitlines()[-1].rstrip().endswith("<--- HERE")
