"""The docstrings of the generated functions and methods: the Python-visible signature first (as
PyTorch's docstrings start, `exp(input, *, out=None) -> Tensor`), then the entry's `doc:`."""
from __future__ import annotations

from .opdb import Arg, Op


def _params(args: list[Arg], out: bool) -> str:
    parts, kw = [], False
    for a in args:
        if a.kwonly and not kw:
            parts.append("*")
            kw = True
        parts.append(a.name + (f"={a.default}" if a.default is not None else ""))
    if out:
        parts += ([] if kw else ["*"]) + ["out=None"]
    return ", ".join(parts)


def returns(op: Op) -> str:
    return op.schema.split("->")[-1].strip()


def signature(op: Op, kind: str, name: str | None = None) -> str:
    """`kind` is function, method, inplace or inplace_function; a method's signature leaves self out,
    as PyTorch's. `name` is the bound name when op is an overload of another (its own public name by default)."""
    if kind == "function":
        return f"{name or op.py_name}({_params(op.args, 'out' in op.variants)}) -> {returns(op)}"
    if kind == "inplace_function":
        return f"{name or op.public_name}_({_params(op.args, False)}) -> {returns(op)}"
    name = (name or op.public_name) + ("_" if kind == "inplace" else "")
    return f"{name}({_params(op.args[1:], False)}) -> {returns(op)}"


def docstring(op: Op, kind: str, overloads: list[Op], alias: str | None = None) -> str:
    """The signature of op and of each overload bound under its name (or under `alias`, one of the op's
    aliases), then their docs."""
    name = alias or (op.py_name if kind == "function" else op.public_name)
    sigs = [signature(op, kind, alias)] + [signature(o, kind, name) for o in overloads]
    text = "\n".join(dict.fromkeys(sigs))
    if alias:
        text += f"\n\nAlias of {op.py_name if kind == 'function' else op.public_name}."
    if kind.startswith("inplace"):
        text += f"\n\nIn-place version of {alias or op.public_name}."
    if op.doc.strip():
        text += "\n\n" + op.doc.strip()
    for o in overloads:
        if o.doc.strip():
            text += f"\n\n{signature(o, kind, name)}: {o.doc.strip()}"
    return text


def c_string(text: str) -> str:
    """A C++ string literal of text (UTF-8 kept as is: the generated sources are UTF-8)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
