"""Script types on the Python side: the same set the C++ IR knows (Tensor, int, float, bool, str,
NoneType, List[T], Tuple[...], Optional[T]), built from annotations and printed as the IR spells them."""
from __future__ import annotations

import dataclasses
import typing


@dataclasses.dataclass(frozen=True)
class JitType:
    kind: str  # "Tensor", "int", "float", "bool", "str", "NoneType", "List", "Tuple", "Optional"
    elems: tuple[JitType, ...] = ()

    def __str__(self) -> str:
        if self.kind in ("List", "Tuple", "Optional"):
            return f"{self.kind}[{', '.join(str(e) for e in self.elems)}]"
        return self.kind

    @property
    def is_number(self) -> bool:
        return self.kind in ("int", "float", "bool")


TENSOR, INT, FLOAT, BOOL, STR, NONE = (JitType(k) for k in ("Tensor", "int", "float", "bool", "str", "NoneType"))


def list_of(t: JitType) -> JitType:
    return JitType("List", (t,))


def tuple_of(ts) -> JitType:
    return JitType("Tuple", tuple(ts))


def optional_of(t: JitType) -> JitType:
    return t if t.kind in ("Optional", "NoneType") else JitType("Optional", (t,))


def from_annotation(ann) -> JitType | None:
    """The script type of a Python annotation object, or None when it has none."""
    import ember

    simple = {int: INT, float: FLOAT, bool: BOOL, str: STR, type(None): NONE, None: NONE}
    if ann in simple:
        return simple[ann]
    if ann is ember.Tensor or (isinstance(ann, type) and issubclass(ann, ember.Tensor)):
        return TENSOR
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is list and len(args) == 1:
        inner = from_annotation(args[0])
        return inner and list_of(inner)
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
    return False
