"""Turning generated source back into functions: compiled under a name linecache knows (so tracebacks
show the generated lines), and the import statements that recreate its globals (for pickling and
to_folder)."""
from __future__ import annotations

import itertools
import linecache
from typing import Any

__all__ = ["_forward_from_src", "_import_block"]

_next_key = itertools.count()


def _forward_from_src(src: str, globals_: dict[str, Any]):
    """The `forward` function src defines, compiled under a file name linecache knows, so tracebacks
    through generated code show its lines."""
    key = f"<eval_with_key>.{next(_next_key)}"
    linecache.cache[key] = (len(src), None, src.splitlines(keepends=True), key)
    scope = dict(globals_)
    exec(compile(src, key, "exec"), scope)
    return scope["forward"]


def _import_block(globals_: dict[str, Any]) -> str:
    """Import statements that recreate the globals generated code needs (for pickling)."""
    lines = []
    for name, obj in globals_.items():
        if name == "ember":
            lines.append("import ember")
        elif name in ("inf", "nan"):
            lines.append(f"from math import {name}")
        elif name == "NoneType":
            lines.append("NoneType = type(None)")
        elif name == "device":
            lines.append("from ember import device")
        else:
            module = getattr(obj, "__module__", None)
            qual = getattr(obj, "__qualname__", None)
            if module is None or qual is None or "<" in qual:
                raise RuntimeError(f"GraphModule: cannot pickle the global {name} = {obj!r} of its generated "
                                   "code (it has no importable name)")
            head, _, rest = qual.partition(".")
            lines.append(f"from {module} import {head} as {name}" if not rest else
                         f"from {module} import {head} as _{name}_owner; {name} = _{name}_owner.{rest}")
    return "\n".join(lines) + "\n"
