"""Classes and objects in ember.jit archives: the class table of meta.json (a scripted class's attribute
names and types; a C++ class by name, its extension needed to load) and objects as JSON (a scripted object's
attributes, a C++ object's __getstate__ state), rebuilt when the archive loads (FORMAT.md)."""
from __future__ import annotations

import re

from .. import _C
from . import _types as T
from ._script_class import custom_methods

_CLASS_NAME = re.compile(r"__torch__\.[A-Za-z0-9_.]+")


def classes_of(texts: list[str]) -> list[dict]:
    """The class table for the class names used in texts (graph text, types) and in their attributes."""
    out, seen, todo = [], set(), [n for text in texts for n in _CLASS_NAME.findall(text)]
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        info = _C._jit.class_info(name)
        if info is None:
            raise RuntimeError(f"ember.jit.save: the class {name} is not defined")
        custom, attrs, types, _ = info
        if custom:
            out.append({"name": name, "custom": True})
            continue
        out.append({"name": name, "attributes": [[a, t] for a, t in zip(attrs, types)]})
        todo.extend(n for t in types for n in _CLASS_NAME.findall(t))
    return out


def define_loaded_classes(table: list[dict]) -> None:
    """Defines the archive's scripted classes not defined in this process (their objects come back as
    instances of a plain stand-in class with the same attributes); checks its C++ classes are registered."""
    for entry in table:
        name = entry["name"]
        info = _C._jit.class_info(name)
        if entry.get("custom"):
            if info is None or not info[0]:
                ns_name = name.replace("__torch__.torch.classes.", "")
                raise RuntimeError(f"ember.jit.load: the archive uses the C++ class {ns_name}, which is not "
                                   "registered: import the extension that defines it (for example embertext) "
                                   "before loading")
            continue
        attrs = [a for a, _ in entry["attributes"]]
        types = [t for _, t in entry["attributes"]]
        if info is not None:
            if info[0] or list(info[1]) != attrs or list(info[2]) != types:
                raise RuntimeError(f"ember.jit.load: the class {name} is defined here with other attributes "
                                   f"({list(zip(info[1], info[2]))}) than the archive's ({entry['attributes']})")
            continue
        short = name.rsplit(".", 1)[-1]
        stand_in = type(short, (), {"__module__": "ember.jit.loaded", "__repr__": _stand_in_repr,
                                    "__ember_loaded_class__": name})
        _C._jit.define_class(name, attrs, types, stand_in)


def _stand_in_repr(self) -> str:
    return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


def encode(value, t: T.JitType):
    """value (of script type t) as JSON."""
    if t.kind == "Class":
        if not isinstance(value, _C._jit.ScriptObject) and hasattr(value, "_ember_script_object"):
            value = value._ember_script_object()
        if isinstance(value, _C._jit.ScriptObject):
            state_type = custom_methods(t)["__getstate__"][1]
            return {"class": t.name, "state": encode(value.__getstate__(), state_type)}
        info = _C._jit.class_info(t.name)
        return {"class": t.name, "fields": {a: encode(getattr(value, a), T.parse(ty))
                                            for a, ty in zip(info[1], info[2])}}
    if t.kind == "Optional":
        return None if value is None else encode(value, t.elems[0])
    if t.kind in ("List", "Tuple"):
        return [encode(v, t.elems[0] if t.kind == "List" else t.elems[k]) for k, v in enumerate(value)]
    if t.kind == "Dict":
        return [[encode(k, t.elems[0]), encode(v, t.elems[1])] for k, v in value.items()]
    if t.kind in ("int", "float", "bool", "str", "NoneType"):
        return value
    raise RuntimeError(f"ember.jit.save: a value of type {t} inside an object cannot be saved")


def decode(data, t: T.JitType):
    """The value encode() wrote."""
    if t.kind == "Class":
        if "state" in data:
            state_type = custom_methods(t)["__setstate__"][0][0]
            return _C._jit.object_from_state(t.name, decode(data["state"], state_type))
        info = _C._jit.class_info(t.name)
        cls = _C._jit.python_class(t.name)
        obj = cls.__new__(cls)
        for a, ty in zip(info[1], info[2]):
            object.__setattr__(obj, a, decode(data["fields"][a], T.parse(ty)))
        return obj
    if t.kind == "Optional":
        return None if data is None else decode(data, t.elems[0])
    if t.kind == "List":
        return [decode(v, t.elems[0]) for v in data]
    if t.kind == "Tuple":
        return tuple(decode(v, e) for v, e in zip(data, t.elems))
    if t.kind == "Dict":
        return {decode(k, t.elems[0]): decode(v, t.elems[1]) for k, v in data}
    return data
