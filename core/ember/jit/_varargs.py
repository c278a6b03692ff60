"""Functions whose eager form takes its tensors one by one or as one list (ember.meshgrid(ys, xs) and
ember.meshgrid([ys, xs]); ember.einsum('i,j->ij', a, b) and ember.einsum('i,j->ij', [a, b])): in scripted code the
tensors given one by one are packed into the list the script version takes, as TorchScript accepts both forms.
Only these: ember.cat(a, b) stays an error, as in eager code."""
from __future__ import annotations

import ember

from . import _types as T
from ._compiler import SValue


def _list_positions() -> dict:
    return {ember.meshgrid: 0, ember.einsum: 1}


def pack_tensor_varargs(compiler, callee, args: list, node) -> list:
    """args with the tensors from the list's position on packed into one List[Tensor], when callee takes
    them either way and they are all tensors; else args unchanged."""
    try:
        k = _list_positions().get(callee)
    except TypeError:  # an unhashable callee
        return args
    if k is None or len(args) <= k:
        return args
    rest = args[k:]
    if not all(isinstance(v, SValue) and v.type == T.TENSOR for v in rest):
        return args
    return list(args[:k]) + [compiler.emit1("prim::ListConstruct", list(rest), T.list_of(T.TENSOR), node)]
