"""Python objects known when compiling that scripted code passes around without a graph value: enum members
(InterpolationMode.BILINEAR, a module's interpolation attribute). They fold where they are compared
(==, !=, is, in a tuple of members) or tested with isinstance, and their .value/.name are constants, so a
module whose attribute holds one compiles only the code for that member (module attributes are baked in).
isinstance of a graph value against a class no script value can be (a PIL image, numbers.Number for a
non-number) is False when compiling, so its branch is dropped as TorchScript drops a refined-away one."""
from __future__ import annotations

import ast
import enum
import numbers

from . import _types as T
from ._compiler import ModuleRef, PyRef, SValue


def is_static(x) -> bool:
    return isinstance(x, PyRef) and isinstance(x.obj, enum.Enum)


class StaticObjects:
    def static_compare(self, node: ast.Compare):
        """(the comparison folded, None) when its left side is an enum member; else (None, the left side
        evaluated, or None when not evaluated)."""
        if len(node.ops) != 1:
            return None, None
        left = self.expr_or_ref(node.left)
        if not is_static(left):
            return None, left
        return self.fold_static(node, left), None

    def fold_static(self, node: ast.Compare, left: PyRef) -> SValue:
        op, right_node = node.ops[0], node.comparators[0]
        if isinstance(op, (ast.In, ast.NotIn)):
            if not isinstance(right_node, (ast.Tuple, ast.List)):
                raise self.error("an enum member can only be tested with `in` against a literal tuple or list",
                                 node)
            found = any(self.static_operand(e) is left.obj for e in right_node.elts)
            return self.const(found == isinstance(op, ast.In))
        right = self.static_operand(right_node)
        if isinstance(op, (ast.Eq, ast.Is)):
            return self.const(right is left.obj)
        if isinstance(op, (ast.NotEq, ast.IsNot)):
            return self.const(right is not left.obj)
        raise self.error(f"an enum member cannot be compared with {type(op).__name__}", node)

    def static_operand(self, e: ast.expr):
        v = self.expr_or_ref(e)
        return v.obj if is_static(v) else v  # a graph value is never an enum member

    def static_isinstance(self, node: ast.Call):
        """isinstance(member, cls) folded; None when the first argument is a graph value."""
        x = self.expr_or_ref(node.args[0])
        if not is_static(x):
            return None
        classes = self.expr_or_ref(node.args[1])
        objs = classes.obj if isinstance(classes, PyRef) else None
        if isinstance(node.args[1], ast.Tuple):
            objs = tuple(self.expr_or_ref(e).obj for e in node.args[1].elts if isinstance(self.expr_or_ref(e), PyRef))
        if objs is None:
            return self.const(False)
        return self.const(isinstance(x.obj, objs))

    @staticmethod
    def foreign_class_kind(obj):
        """isinstance's class argument outside the script types: numbers.Number (the number types), or a
        class no script value is (a PIL Image, an ndarray, an enum): a type matching nothing."""
        if obj is numbers.Number or obj is numbers.Real:
            return "number"
        if obj is numbers.Integral:
            return T.INT
        if isinstance(obj, type) and obj not in (int, float, bool, str, list, tuple, dict, type(None)):
            import ember

            if not issubclass(obj, ember.Tensor):
                return "foreign"
        return None

    def static_attr(self, v):
        """A module attribute or default known when compiling: an enum member stays a reference, a dtype is
        its ScalarType code; None for anything else."""
        if isinstance(v, enum.Enum):
            return PyRef(v)
        if isinstance(v, (list, tuple)) and v and all(isinstance(m, nn_module()) for m in v):
            return ModuleRef(v)  # a plain list of modules (Compose's transforms): unrolled like a ModuleList
        import ember

        if isinstance(v, ember.dtype):
            from ember._C import _jit

            return self.const(_jit.dtype_code(v))
        return None


def nn_module():
    import ember.nn

    return ember.nn.Module


def type_matches_foreign(t: T.JitType, want) -> bool | None:
    if want == "number":
        return t.is_number
    if want == "foreign":
        return False
    return None


__all__ = ["StaticObjects", "is_static", "type_matches_foreign", "SValue"]
