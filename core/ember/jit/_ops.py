"""The op database seen from the script compiler: which op-table ops a Python callable or a Tensor method
names (overloads included), their schemas with types and default values, and binding a call's
arguments to one of them."""
from __future__ import annotations

import ast
import dataclasses
import functools

from . import _types as T

# Schema argument types as script types; TensorLike and Scalar take numbers, handled in accepts().
_ARG_TYPES = {
    "Tensor": T.TENSOR, "Tensor?": T.optional_of(T.TENSOR), "Tensor[]": T.list_of(T.TENSOR),
    "int": T.INT, "int?": T.optional_of(T.INT), "int[]": T.list_of(T.INT), "int[]?": T.optional_of(T.list_of(T.INT)),
    "float": T.FLOAT, "float?": T.optional_of(T.FLOAT), "bool": T.BOOL, "bool?": T.optional_of(T.BOOL),
    "str": T.STR, "str?": T.optional_of(T.STR), "ScalarType": T.INT, "ScalarType?": T.optional_of(T.INT),
    "Device?": T.optional_of(T.STR), "Generator?": T.NONE,
}
_RET_TYPES = {"Tensor": T.TENSOR, "Tensor[]": T.list_of(T.TENSOR), "bool": T.BOOL, "int": T.INT, "float": T.FLOAT}


@dataclasses.dataclass
class SchemaArg:
    type: str
    name: str
    default: object  # a Python value; _NO_DEFAULT when required
    kwonly: bool


_NO_DEFAULT = object()


@dataclasses.dataclass
class Schema:
    kind: str  # "aten::NAME"
    args: list[SchemaArg]
    returns: list[T.JitType]


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return parts + [cur.strip()] if cur.strip() else parts


def _default(text: str) -> object:
    return ast.literal_eval(text)  # 1, 1.0, None, True, [], 'mean'


@functools.lru_cache(maxsize=None)
def schema(name: str) -> Schema | None:
    return qualified_schema(name if "::" in name else "aten::" + name)  # a library's op by its own (vision::nms)


def registered_op_name(obj) -> str | None:
    """"NS::name" for an op handle from ember.ops.NS (an extension library's op, as emberaudio's), else None."""
    kind = type(obj)
    return obj.qualified_name if kind.__module__ == "ember._C" and kind.__qualname__ == "_Op" else None


@functools.lru_cache(maxsize=None)
def qualified_schema(qualified: str) -> Schema | None:
    from ember._C import _jit

    text = _jit.op_schema(qualified)
    if text is None:
        return None
    head, ret = text.rsplit("->", 1)
    params = head[head.index("(") + 1:head.rindex(")")]
    args, kwonly = [], False
    for p in _split_top(params):
        if p == "*":
            kwonly = True
            continue
        decl, _, dflt = p.partition("=")
        typ, pname = decl.strip().rsplit(" ", 1)
        args.append(SchemaArg(typ, pname, _default(dflt.strip()) if dflt else _NO_DEFAULT, kwonly))
    ret = ret.strip()
    if ret.startswith("("):
        ret = ret[1:-1]
    returns = [_RET_TYPES[r.split()[0]] for r in _split_top(ret)]
    return Schema(qualified, args, returns)


@functools.lru_cache(maxsize=None)
def _overloads() -> dict[str, list[str]]:
    from ember._C import _jit

    by_public: dict[str, list[str]] = {}
    for op, public in _jit.overloads():
        by_public.setdefault(public, []).append(op)
    return by_public


def candidates(name: str) -> list[str]:
    """Op names a call of the public name `name` may mean: the op itself, then its overloads."""
    names = [name] if schema(name) is not None else []
    return names + _overloads().get(name, [])


@functools.lru_cache(maxsize=None)
def _callable_names() -> dict[int, str]:
    """id of each public ember callable -> the op-database name it calls (ember.linalg.cholesky ->
    linalg_cholesky); F's Python wrappers map by their own name."""
    import ember
    import ember.nn.functional as F

    table: dict[int, str] = {}
    for mod, prefix in ((ember._C, ""), (F, ""), (ember.special, "special_"), (ember.fft, "fft_"),
                        (ember.linalg, "linalg_"), (ember, "")):
        for n in dir(mod):
            obj = getattr(mod, n, None)
            if callable(obj) and not isinstance(obj, type) and not n.startswith("__"):
                table[id(obj)] = prefix + n
    return table


def library_op_name(obj) -> str | None:
    """The qualified name of an op an extension registered (ember.ops.vision.nms -> vision::nms), which scripted
    code calls as it calls the database's ops; None for anything else."""
    if type(obj).__name__ == "_Op" and isinstance(getattr(obj, "qualified_name", None), str) and \
            schema(obj.qualified_name) is not None:
        return obj.qualified_name
    return None


def op_name_of(obj) -> str | None:
    name = _callable_names().get(id(obj))
    return name if name is not None and candidates(name) else None


class AtenOp:
    """An op of the table by its database name, for the script versions of functions (_builtins_nn.py):
    `aten.convolution(...)` compiles to that op."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args, **kwargs):
        import ember

        return getattr(ember._C, self.name)(*args, **kwargs)


class _AtenOps:
    def __getattr__(self, name: str) -> AtenOp:
        return AtenOp(name)


aten = _AtenOps()
