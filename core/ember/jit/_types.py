"""Script types on the Python side: the same set the C++ IR knows (Tensor, int, float, bool, str,
NoneType, List[T], Tuple[...], Optional[T], Dict[K, V], Union[...], Any, and classes -- scripted ones and the C++
classes of ember.classes -- by qualified name; a NamedTuple is a Tuple that keeps its class for field names and for
building the Python result), built from annotations and printed as the IR spells them."""
from __future__ import annotations

import dataclasses
import typing


@dataclasses.dataclass(frozen=True)
class JitType:
    kind: str  # "Tensor", "int", "float", "bool", "str", "NoneType", "List", "Tuple", "Optional", "Dict"
    elems: tuple[JitType, ...] = ()
    named: object = dataclasses.field(default=None, compare=False)  # a NamedTuple's class
    name: str = ""  # a Class's qualified name

    def __str__(self) -> str:
        if self.kind == "Class":
            return self.name
        if self.kind in ("List", "Tuple", "Optional", "Dict", "Future", "Union"):
            return f"{self.kind}[{', '.join(str(e) for e in self.elems)}]"
        return self.kind

    @property
    def is_number(self) -> bool:
        return self.kind in ("int", "float", "bool")


TENSOR, INT, FLOAT, BOOL, STR, NONE = (JitType(k) for k in ("Tensor", "int", "float", "bool", "str", "NoneType"))
ANY = JitType("Any")  # a parameter of an inlined function: the argument keeps its own type


def list_of(t: JitType) -> JitType:
    return JitType("List", (t,))


def tuple_of(ts) -> JitType:
    return JitType("Tuple", tuple(ts))


def dict_of(k: JitType, v: JitType) -> JitType:
    return JitType("Dict", (k, v))


def is_namedtuple_class(obj) -> bool:
    return isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields")


def namedtuple_type(cls) -> JitType | None:
    """A typing.NamedTuple class's script type (its fields' annotations, Tensor when unannotated)."""
    hints = typing.get_type_hints(cls) if getattr(cls, "__annotations__", None) else {}
    fields = [TENSOR if f not in hints else from_annotation(hints[f]) for f in cls._fields]
    return None if None in fields else JitType("Tuple", tuple(fields), cls)


def union_of(members) -> JitType:
    """Union[...] of members (nested Unions and Optionals flattened, repeats dropped); one member is itself, and
    a member with None is Optional[member], as typing spells them."""
    flat: list[JitType] = []
    for m in members:
        for x in (m.elems if m.kind == "Union" else (m.elems[0], NONE) if m.kind == "Optional" else (m,)):
            if x not in flat:
                flat.append(x)
    rest = [m for m in flat if m != NONE]
    if len(flat) == 1:
        return flat[0]
    if len(rest) == 1:
        return optional_of(rest[0])
    return JitType("Union", tuple(flat))


def without_none(t: JitType) -> JitType:
    """The type a value of t has once it is known not to be None."""
    if t.kind == "Optional":
        return t.elems[0]
    if t.kind == "Union" and NONE in t.elems:
        return union_of([m for m in t.elems if m != NONE])
    return t


def optional_of(t: JitType) -> JitType:
    return t if t.kind in ("Optional", "NoneType") else JitType("Optional", (t,))


def from_annotation(ann) -> JitType | None:
    """The script type of a Python annotation object, or None when it has none."""
    import ember

    simple = {int: INT, float: FLOAT, bool: BOOL, str: STR, type(None): NONE, None: NONE}
    if ann in simple:
        return simple[ann]
    if ann is typing.Any:
        return ANY
    if ann is ember.Tensor or (isinstance(ann, type) and issubclass(ann, ember.Tensor)):
        return TENSOR
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is list and len(args) == 1:
        inner = from_annotation(args[0])
        return inner and list_of(inner)
    if origin is dict and len(args) == 2:
        k, v = from_annotation(args[0]), from_annotation(args[1])
        return None if k is None or v is None or k.kind not in ("str", "int", "float", "bool", "Tensor") else \
            dict_of(k, v)
    if is_namedtuple_class(ann):
        return namedtuple_type(ann)
    script_class = ann.__dict__.get("__ember_script_class__") if isinstance(ann, type) else None
    if script_class is not None:
        return script_class.type
    if isinstance(getattr(ann, "qualified_name", None), str) and ann.qualified_name.startswith("__torch__."):
        return JitType("Class", name=ann.qualified_name)  # an ember.classes C++ class
    if origin is typing.Union or type(ann).__name__ == "UnionType":
        members = [from_annotation(a) for a in args]
        return None if None in members else union_of(members)
    if origin is tuple and args:
        inner = [from_annotation(a) for a in args]
        return None if None in inner else tuple_of(inner)
    return None


def unify(a: JitType, b: JitType) -> JitType | None:
    """The one type both may be given as (T and None give Optional[T]); None when there is none."""
    if a == b:
        return a
    if a == NONE:
        return optional_of(b)
    if b == NONE:
        return optional_of(a)
    if a.kind == "Optional" and unify(a.elems[0], b) == a.elems[0]:
        return a
    if b.kind == "Optional" and unify(b.elems[0], a) == b.elems[0]:
        return b
    for u, other in ((a, b), (b, a)):
        if u.kind in ("Union", "Any") and accepts(u, other):
            return u
    if a.kind == "Tuple" and b.kind == "Tuple" and len(a.elems) == len(b.elems) and a.named is None and \
            b.named is None:  # (T, None) and (T, D) give Tuple[T, Optional[D]], as TorchScript unifies tuples
        elems = [unify(x, y) for x, y in zip(a.elems, b.elems)]
        return None if None in elems else tuple_of(elems)
    return None


def accepts(param: JitType, arg: JitType) -> bool:
    """Whether a value of type arg may be passed where param is declared."""
    if param == arg:
        return True
    if param.kind == "Optional":
        return arg == NONE or accepts(param.elems[0], arg)
    if param.kind == "Any":
        return arg.kind != "Future"
    if param.kind == "Union":
        members = arg.elems if arg.kind == "Union" else (arg.elems[0], NONE) if arg.kind == "Optional" else (arg,)
        return all(any(accepts(p, m) for p in param.elems) for m in members)
    if param == FLOAT and arg == INT:
        return True
    if param.kind == "List" and arg.kind == "List":
        return accepts(param.elems[0], arg.elems[0])
    if param.kind == "Tuple" and arg.kind == "Tuple" and len(param.elems) == len(arg.elems):
        return all(accepts(p, a) for p, a in zip(param.elems, arg.elems))
    return False


def rebuild_named(value, t: JitType):
    """A result as Python sees it: the tuples of NamedTuple types rebuilt as their classes."""
    if t.kind == "Tuple" and isinstance(value, tuple):
        items = tuple(rebuild_named(v, e) for v, e in zip(value, t.elems))
        return t.named(*items) if t.named is not None else items
    if t.kind == "List" and isinstance(value, list) and _has_named(t.elems[0]):
        return [rebuild_named(v, t.elems[0]) for v in value]
    if t.kind == "Optional" and value is not None:
        return rebuild_named(value, t.elems[0])
    return value


def _has_named(t: JitType) -> bool:
    return t.named is not None or any(_has_named(e) for e in t.elems)


_SIMPLE = {"Tensor": TENSOR, "int": INT, "float": FLOAT, "bool": BOOL, "str": STR, "NoneType": NONE, "Any": ANY}


def split_type_args(inner: str) -> list:
    """The arguments of a script type's brackets ("int, List[str]" of "Tuple[int, List[str]]"), split at the
    commas outside nested brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        depth += c == "["
        depth -= c == "]"
        if c == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    return [p for p in parts if p.strip()]


def parse(text: str) -> JitType:
    """The type the IR prints as text (Tensor, List[int], Dict[str, Tuple[int, float]], Union[...], a class's
    qualified name); ValueError naming it when it is none."""
    text = text.strip()
    if text in _SIMPLE:
        return _SIMPLE[text]
    if text.startswith("__torch__.") and "[" not in text:
        return JitType("Class", name=text)
    head, _, rest = text.partition("[")
    if head not in ("List", "Tuple", "Optional", "Dict", "Union", "Future") or not rest.endswith("]"):
        raise ValueError(f"invalid script type {text!r}")
    elems = tuple(parse(p) for p in split_type_args(rest[:-1]))
    if head == "Union":
        return union_of(elems)
    if head == "Optional":
        return optional_of(elems[0])
    return JitType(head, elems)
