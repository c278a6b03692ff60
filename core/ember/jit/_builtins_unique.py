"""ember.unique, ember.unique_consecutive and Tensor.unique in scripted code. Their result is a Tensor or a tuple
depending on return_inverse and return_counts, so those flags must be constants when compiling (TorchScript's
boolean dispatch, whose message a non-constant flag gets); each combination compiles one of the functions below,
which call the ops eager code calls (_unique2, _unique_dim, _unique_consecutive). Tensor.unique_consecutive is
TorchScript's aten::unique_consecutive: always the three tensors (an empty one for a part not asked for)."""
from __future__ import annotations

from typing import Optional, Tuple

import ember
from ember import Tensor

from ._ops import aten

_UNIQUE_PARAMS = ("input", "sorted", "return_inverse", "return_counts", "dim")
_CONSECUTIVE_PARAMS = ("input", "return_inverse", "return_counts", "dim")


def _unique(input: Tensor, sorted: bool, return_inverse: bool, return_counts: bool,
            dim: Optional[int]) -> Tuple[Tensor, Tensor, Tensor]:
    if dim is None:
        return aten._unique2(input, sorted, return_inverse, return_counts)
    return aten._unique_dim(input, dim, sorted, return_inverse, return_counts)


def unique_output(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
                  dim: Optional[int] = None) -> Tensor:
    return _unique(input, sorted, return_inverse, return_counts, dim)[0]


def unique_inverse(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
                   dim: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    out = _unique(input, sorted, return_inverse, return_counts, dim)
    return out[0], out[1]


def unique_counts(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
                  dim: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    out = _unique(input, sorted, return_inverse, return_counts, dim)
    return out[0], out[2]


def unique_all(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
               dim: Optional[int] = None) -> Tuple[Tensor, Tensor, Tensor]:
    return _unique(input, sorted, return_inverse, return_counts, dim)


def consecutive_output(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: Optional[int] = None) -> Tensor:
    return aten._unique_consecutive(input, return_inverse, return_counts, dim)[0]


def consecutive_inverse(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                        dim: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    out = aten._unique_consecutive(input, return_inverse, return_counts, dim)
    return out[0], out[1]


def consecutive_counts(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    out = aten._unique_consecutive(input, return_inverse, return_counts, dim)
    return out[0], out[2]


def consecutive_all(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                    dim: Optional[int] = None) -> Tuple[Tensor, Tensor, Tensor]:
    return aten._unique_consecutive(input, return_inverse, return_counts, dim)


def method_unique_consecutive(self: Tensor, return_inverse: bool = False, return_counts: bool = False,
                              dim: Optional[int] = None) -> Tuple[Tensor, Tensor, Tensor]:
    return aten._unique_consecutive(self, return_inverse, return_counts, dim)


_UNIQUE = {(False, False): unique_output, (True, False): unique_inverse, (False, True): unique_counts,
           (True, True): unique_all}
_CONSECUTIVE = {(False, False): consecutive_output, (True, False): consecutive_inverse,
                (False, True): consecutive_counts, (True, True): consecutive_all}


def is_unique(callee) -> bool:
    return callee is ember.unique or callee is ember.unique_consecutive


def is_consecutive(callee) -> bool:
    return callee is ember.unique_consecutive


def compile_unique(compiler, consecutive: bool, args: list, kwargs: dict, node):
    """The call of ember.unique(...) (or unique_consecutive, or the method Tensor.unique with self first) as the
    function its constant flags pick."""
    params = _CONSECUTIVE_PARAMS if consecutive else _UNIQUE_PARAMS
    flags = []
    for name in ("return_inverse", "return_counts"):
        k = params.index(name)
        v = args[k] if k < len(args) else kwargs.get(name)
        if v is None:
            flags.append(False)
        elif v.id in compiler.const_values and isinstance(compiler.const_values[v.id], bool):
            flags.append(compiler.const_values[v.id])
        elif k < len(args):
            raise compiler.error(f"Argument for boolean dispatch at position {k} was not constant", node)
        else:
            raise compiler.error(f"Keyword argument '{name}' for boolean dispatch at position was not constant", node)
    fn = (_CONSECUTIVE if consecutive else _UNIQUE)[tuple(flags)]
    return compiler.inline_call(fn, args, kwargs, node)
