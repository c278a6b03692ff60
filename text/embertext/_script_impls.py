"""The script versions of embertext.functional (ember.jit compiles these for `ember.jit.script(F.truncate)` and
for scripted calls of F.truncate, through each eager function's `_ember_script_impl`): the eager bodies check
their inputs with helpers outside the script language; these check them with ember.jit.isinstance and give
the same results (and raise the same exception types)."""

from typing import Any, List, Optional, Union

import ember


def to_tensor(input: Any, padding_value: Optional[int] = None, dtype: Optional[int] = None) -> ember.Tensor:
    d = ember.long
    if dtype is not None:
        d = dtype
    if ember.jit.isinstance(input, List[int]):
        return ember.tensor(input, dtype=d)
    elif ember.jit.isinstance(input, List[List[int]]):
        longest = 0
        for ids in input:
            longest = max(longest, len(ids))
        if padding_value is None:
            for ids in input:
                if len(ids) != longest:
                    raise ValueError("to_tensor: the sequences have different lengths; pass padding_value to pad them")
            return ember.tensor(input, dtype=d)
        pad = padding_value
        rows = [ids + [pad] * (longest - len(ids)) for ids in input]
        return ember.tensor(rows, dtype=d)
    else:
        raise TypeError("to_tensor: input type not supported: expected List[int] or List[List[int]]")


def truncate(input: Any, max_seq_len: int) -> Any:
    if max_seq_len < 0:
        raise ValueError(f"truncate: max_seq_len must be non-negative, got {max_seq_len}")
    if ember.jit.isinstance(input, List[int]):
        return input[:max_seq_len]
    elif ember.jit.isinstance(input, List[str]):
        return input[:max_seq_len]
    elif ember.jit.isinstance(input, List[List[int]]):
        return [ids[:max_seq_len] for ids in input]
    elif ember.jit.isinstance(input, List[List[str]]):
        return [ids[:max_seq_len] for ids in input]
    else:
        raise TypeError("truncate: input type not supported: expected a list of ids or tokens or a batch of them")


def add_token(input: Any, token_id: Union[int, str], begin: bool = True) -> Any:
    if isinstance(token_id, int):
        if ember.jit.isinstance(input, List[int]):
            return [token_id] + input if begin else input + [token_id]
        elif ember.jit.isinstance(input, List[List[int]]):
            return [[token_id] + ids if begin else ids + [token_id] for ids in input]
        else:
            raise TypeError("add_token: input type not supported: expected List[int] or List[List[int]] matching "
                            "the token")
    else:
        if ember.jit.isinstance(input, List[str]):
            return [token_id] + input if begin else input + [token_id]
        elif ember.jit.isinstance(input, List[List[str]]):
            return [[token_id] + ids if begin else ids + [token_id] for ids in input]
        else:
            raise TypeError("add_token: input type not supported: expected List[str] or List[List[str]] matching "
                            "the token")


def str_to_int(input: Any) -> Any:
    if ember.jit.isinstance(input, List[str]):
        return [int(x) for x in input]
    elif ember.jit.isinstance(input, List[List[str]]):
        return [[int(x) for x in row] for row in input]
    else:
        raise TypeError("str_to_int: input type not supported: expected List[str] or List[List[str]]")
