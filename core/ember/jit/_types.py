"""Script types on the Python side: the same set the C++ IR knows (Tensor, int, float, bool, str,
NoneType, List[T], Tuple[...], Optional[T], Dict[K, V]; a NamedTuple is a Tuple that keeps its class for
field names and for building the Python result), built from annotations and printed as the IR spells them."""
from __future__ import annotations

import dataclasses
import typing


@dataclasses.dataclass(frozen=True)
class JitType:
    kind: str  # "Tensor", "int", "float", "bool", "str", "NoneType", "List", "Tuple", "Optional", "Dict"
    elems: tuple[JitType, ...] = ()
    named: object = dataclasses.field(default=None, compare=False)  # a NamedTuple's class

    def __str__(self) -> str:
        if self.kind in ("List", "Tuple", "Optional", "Dict", "Future"):
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
    if origin is tuple and args:
        inner = [from_annotation(a) for a in args]
        return None if None in inner else tuple_of(inner)
    if origin is typing.Union and len(args) == 2 and type(None) in args:
        inner = from_annotation(args[0] if args[1] is type(None) else args[1])
        return inner and optional_of(inner)
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
    return None


def accepts(param: JitType, arg: JitType) -> bool:
    """Whether a value of type arg may be passed where param is declared."""
    if param == arg:
        return True
    if param.kind == "Optional":
        return arg == NONE or accepts(param.elems[0], arg)
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
