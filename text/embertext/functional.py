"""Functional forms of embertext's transforms (torchtext.functional): to_tensor, truncate, add_token,
str_to_int. Each takes one sequence or a batch (a list of sequences)."""

from typing import Any, Optional, Union

import ember
from ember.nn.utils.rnn import pad_sequence


def _is_seq(x: Any, kind) -> bool:
    return isinstance(x, list) and all(isinstance(v, kind) and not isinstance(v, bool) for v in x)


def _is_batch(x: Any, kind) -> bool:
    return isinstance(x, list) and len(x) > 0 and all(_is_seq(v, kind) for v in x)


def to_tensor(input: Any, padding_value: Optional[int] = None, dtype: ember.dtype = ember.long) -> ember.Tensor:
    """A tensor of a list of ids, or of a batch of them: a batch of unequal lengths needs `padding_value`,
    which pads every row to the longest."""
    if _is_seq(input, int):
        return ember.tensor(input, dtype=dtype)
    if _is_batch(input, int):
        if padding_value is None:
            lengths = {len(ids) for ids in input}
            if len(lengths) > 1:
                raise ValueError(
                    f"to_tensor: the sequences have different lengths {sorted(lengths)}; pass padding_value to pad them"
                )
            return ember.tensor(input, dtype=dtype)
        rows = [ember.tensor(ids, dtype=dtype) for ids in input]
        return pad_sequence(rows, batch_first=True, padding_value=float(padding_value))
    raise TypeError(
        f"to_tensor: input type not supported: expected List[int] or List[List[int]], got {_describe(input)}"
    )


def truncate(input: Any, max_seq_len: int) -> Any:
    """The first `max_seq_len` items of a sequence (ids or tokens), or of each sequence of a batch."""
    if max_seq_len < 0:
        raise ValueError(f"truncate: max_seq_len must be non-negative, got {max_seq_len}")
    if _is_seq(input, (int, str)):
        return input[:max_seq_len]
    if _is_batch(input, (int, str)):
        return [ids[:max_seq_len] for ids in input]
    raise TypeError(
        f"truncate: input type not supported: expected a list of ids or tokens or a batch of them, "
        f"got {_describe(input)}"
    )


def add_token(input: Any, token_id: Union[int, str], begin: bool = True) -> Any:
    """The sequence (or each of a batch) with `token_id` added at its beginning, or its end."""
    kind = str if isinstance(token_id, str) else int
    if _is_seq(input, kind):
        return [token_id] + input if begin else input + [token_id]
    if _is_batch(input, kind):
        return [[token_id] + ids if begin else ids + [token_id] for ids in input]
    raise TypeError(
        f"add_token: input type not supported: expected List[{kind.__name__}] or "
        f"List[List[{kind.__name__}]] matching the token, got {_describe(input)}"
    )


def str_to_int(input: Any) -> Any:
    """Each string of a list (or of each list of a batch) converted to int."""
    if _is_seq(input, str):
        return [int(x) for x in input]
    if _is_batch(input, str):
        return [[int(x) for x in row] for row in input]
    raise TypeError(
        f"str_to_int: input type not supported: expected List[str] or List[List[str]], got {_describe(input)}"
    )


def _describe(x: Any) -> str:
    if isinstance(x, list):
        inner = sorted({type(v).__name__ for v in x})
        return f"list of {', '.join(inner)}" if inner else "an empty list"
    return type(x).__name__


def _attach_script_impls() -> None:
    from . import _script_impls

    for fn in (to_tensor, truncate, add_token, str_to_int):
        fn._ember_script_impl = getattr(_script_impls, fn.__name__)


_attach_script_impls()
