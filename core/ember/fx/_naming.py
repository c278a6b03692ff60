"""Names in generated code: the dotted name of a call target, and the per-graph namespace that gives
each node a unique, legal Python identifier (PyTorch's rules: 'sum' becomes 'sum_1', as builtins and
keywords are not used as names)."""
from __future__ import annotations

import builtins
import functools
import importlib
import keyword
import re

__all__ = ["qualified_name", "resolve_dotted", "Namespace", "snake_case"]

_ILLEGAL_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {"ember", "inf", "nan", "NoneType",
                                                                           "device", "self"}
_NUMBERED = re.compile(r"(.*)_(\d+)$")
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def snake_case(s: str) -> str:
    return _CAMEL.sub(r"_\1", s).lower()


def resolve_dotted(name: str):
    """The object a dotted name 'pkg.mod.attr.attr' refers to (raises if none)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(name)


@functools.lru_cache(maxsize=None)
def _cached_name(target) -> str:
    name = getattr(target, "__name__", None)
    module = getattr(target, "__module__", None)
    if module == "_operator":
        module = "operator"
    if module is not None and module.split(".")[0] == "ember" or module is None:
        from .. import overrides
        public = overrides.resolve_name(target)
        if public is not None:
            try:
                if resolve_dotted(public) is target:
                    return public
            except (ImportError, AttributeError):
                pass
    qual = getattr(target, "__qualname__", name)
    if module is None:
        return qual or repr(target)
    return f"{module}.{qual}"


def qualified_name(target) -> str:
    """'ember.relu', 'ember.nn.functional.relu', 'operator.add', 'builtins.getattr', 'mymod.myfn'."""
    try:
        return _cached_name(target)
    except TypeError:  # an unhashable callable
        return _cached_name.__wrapped__(target)


class Namespace:
    """Unique identifiers for the objects of one graph; the same object asks twice, gets one name."""

    def __init__(self):
        self._obj_to_name: dict[int, str] = {}
        self._used: set[str] = set()
        self._base_count: dict[str, int] = {}

    def create_name(self, candidate: str, obj=None) -> str:
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)]
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = _NUMBERED.match(candidate)
        base, num = (match.group(1), int(match.group(2))) if match else (candidate, None)
        while candidate in self._used or candidate in _ILLEGAL_NAMES:
            num = self._base_count.get(base, 0) + 1 if num is None else num + 1
            self._base_count[base] = num
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        if obj is not None:
            self._obj_to_name[id(obj)] = candidate
        return candidate

    def associate_name_with_obj(self, name: str, obj) -> None:
        self._obj_to_name[id(obj)] = name

    def forget(self, name: str) -> None:
        self._used.discard(name)
