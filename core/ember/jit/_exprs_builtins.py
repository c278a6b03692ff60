"""Calls of Python's builtins in scripted code (len, min/max, int/float/bool, abs, str, print, isinstance,
list), of NamedTuple classes (a typed tuple) and of @ember.jit.unused functions (a raise)."""
from __future__ import annotations

import ast
import typing

from . import _python_ops
from . import _types as T
from ._compiler import ModuleRef, PyRef, SValue
from . import _builtins_language_extra, _builtins_math
from ._exprs_static import type_matches_foreign

_CLASS_KINDS = {list: "List", dict: "Dict", tuple: "Tuple"}


def _number_result(a: T.JitType, b: T.JitType) -> T.JitType:
    return T.FLOAT if T.FLOAT in (a, b) else T.INT


class BuiltinCalls:
    def all_or_any(self, name: str, node: ast.Call) -> SValue:
        from . import _builtins_all_any

        arg = node.args[0]
        if isinstance(arg, ast.GeneratorExp):  # all(x > 0 for x in xs): the list comprehension's items
            arg = ast.copy_location(ast.ListComp(arg.elt, arg.generators), arg)
        items = self.expr(arg)
        if items.type.kind != "List" or not (items.type.elems[0].is_number or items.type.elems[0] == T.STR):
            raise self.unsupported(f"{name}() of a {items.type}", node)
        if items.type.elems[0] != T.BOOL:
            truth = ast.copy_location(ast.ListComp(ast.Call(ast.Name("bool", ast.Load()), [ast.Name("_x", ast.Load())],
                                                            []),
                                                   [ast.comprehension(ast.Name("_x", ast.Store()), arg, [], 0)]), arg)
            ast.fix_missing_locations(truth)
            self._compiled_once = (arg, items)
            items = self.expr(truth)
        fn = _builtins_all_any.all_ if name == "all" else _builtins_all_any.any_
        return self.inline_call(fn, [items], {}, node)

    def call_builtin(self, name: str, node: ast.Call) -> SValue:
        if name == "isinstance":
            return self.isinstance_call(node)
        if name == "len" and len(node.args) == 1:
            ref = self.expr_or_ref(node.args[0])
            if isinstance(ref, ModuleRef):  # len(self.layers): known when compiling
                return self.const(len(ref.obj))
        if name == "type" and len(node.args) == 1:
            ref = self.expr_or_ref(node.args[0])
            if isinstance(ref, ModuleRef):  # type(self).fn: the module's class, read when compiling
                return PyRef(type(ref.obj))
        if name in ("all", "any") and len(node.args) == 1 and not node.keywords:
            return self.all_or_any(name, node)
        if name in ("int", "float", "bool") and len(node.args) == 1 and _is_item_call(node.args[0]):
            # int(t.item()) is int(t): the number's type is the one the conversion names, as TorchScript's Scalar
            # is once converted
            base = self.expr(node.args[0].func.value)
            if base.type == T.TENSOR:
                return self.emit1("prim::" + name.capitalize(), [base], {"int": T.INT, "float": T.FLOAT,
                                                                          "bool": T.BOOL}[name], node)
        args, kwargs = self.args_of(node)
        if name == "sorted" and len(args) == 1 and args[0].type.kind == "List" and not kwargs:
            return self.inline_call(_builtins_language_extra.sorted_list, args, kwargs, node)  # a sorted copy
        if kwargs:
            raise self.unsupported(f"keyword arguments to {name}()", node)
        if name == "len" and len(args) == 1:
            a = args[0]
            if a.type.kind == "List":
                return self.emit1("prim::len", [a], T.INT, node)
            if a.type.kind == "Dict":
                return self.emit1("prim::DictLen", [a], T.INT, node)
            if a.type == T.STR:
                return self.emit1("prim::StrLen", [a], T.INT, node)
            if a.type.kind == "Tuple":
                return self.const(len(a.type.elems))
            if a.type == T.TENSOR:
                return self.emit1("prim::size", [a, self.const(0)], T.INT, node)
        if name in ("min", "max") and len(args) >= 2 and all(a.type.is_number for a in args):
            acc = args[0]
            for b in args[1:]:
                acc = self.emit1("prim::" + name, [acc, b], _number_result(acc.type, b.type), node)
            return acc
        if name == "float" and len(args) == 1 and args[0].id in self.const_values and args[0].type == T.STR:
            return self.const(float(self.const_values[args[0].id]))  # float("-inf")
        if name in ("int", "float", "bool") and len(args) == 1 and (args[0].type.is_number or args[0].type == T.TENSOR):
            out = {"int": T.INT, "float": T.FLOAT, "bool": T.BOOL}[name]
            return self.emit1("prim::" + name.capitalize(), args, out, node)
        if name == "abs" and len(args) == 1:
            if args[0].type == T.TENSOR:
                return self.call_op("abs", args, {}, node)
            if args[0].type.is_number:
                return self.emit1("prim::abs", args, T.INT if args[0].type == T.BOOL else args[0].type, node)
        if name == "str" and len(args) == 1:
            if self.holds_tensor(args[0].type):
                return self.format_values(self.const("{}"), args, node)
            return self.emit1("prim::str", args, T.STR, node)
        if name == "print":
            if any(self.holds_tensor(a.type) for a in args):  # tensors print by Python's str
                return self.python_call(_python_ops._print, "print", args, T.NONE, node)
            self.emit("prim::print", args, [], node)
            return self.const(None)
        if name == "list" and len(args) == 1 and args[0].type.kind == "List":
            return self.emit1("prim::ListCopy", args, args[0].type, node)
        if name in ("list", "min", "max") and len(args) == 1 and args[0].type.kind == "Tuple" and args[0].type.elems:
            items = self.tuple_items(args[0], node)
            t = self.common_type(items, [node] * len(items), "the items")
            if name == "list":
                return self.emit1("prim::ListConstruct", items, T.list_of(t), node)
            acc = items[0]
            for b in items[1:]:
                acc = self.emit1("prim::" + name, [acc, b], _number_result(acc.type, b.type), node)
            return acc
        if name in ("min", "max") and len(args) == 1 and args[0].type.kind == "List" and \
                args[0].type.elems[0].is_number:
            return self.emit1("prim::list_" + name, args, args[0].type.elems[0], node)
        if name == "sum" and len(args) == 1 and args[0].type.kind == "List" and \
                args[0].type.elems[0] in (T.INT, T.FLOAT, T.BOOL):  # TorchScript's sum.int/.float/.bool
            impl = {T.INT: _builtins_math.sum_ints, T.FLOAT: _builtins_math.sum_floats,
                    T.BOOL: _builtins_math.sum_bools}[args[0].type.elems[0]]
            return self.inline_call(impl, args, kwargs, node)
        if name == "range":
            raise self.unsupported("range() outside a for loop", node)
        if name in _builtins_math.BUILTIN_IMPLS and all(a.type.is_number for a in args):  # round(x[, n])
            return self.inline_call(_builtins_math.BUILTIN_IMPLS[name], args, kwargs, node)
        raise self.error(f"unsupported call of builtin {name}() with arguments of types "
                         f"{', '.join(str(a.type) for a in args)}", node)

    def tuple_items(self, t: SValue, node) -> list[SValue]:
        if t.id in self.const_values:
            return [self.const(v) for v in self.const_values[t.id]]
        return [self.emit1("prim::TupleIndex", [t, self.const(k)], e, node) for k, e in enumerate(t.type.elems)]

    # --- isinstance -------------------------------------------------------------------------------
    def isinstance_call(self, node: ast.Call) -> SValue:
        if len(node.args) != 2 or node.keywords:
            raise self.error("isinstance() takes a value and a type", node)
        folded = self.static_isinstance(node)  # type: ignore[attr-defined]  (StaticObjects')
        if folded is not None:
            return folded
        v = self.expr(node.args[0])
        wants = self.isinstance_types(node.args[1])
        if v.type.kind == "Optional":
            inner = v.type.elems[0]
            if T.NONE in wants and any(self.type_matches(inner, w) for w in wants):
                return self.const(True)
            if any(self.type_matches(inner, w) for w in wants):
                is_none = self.emit1("prim::isNone", [v], T.BOOL, node)
                return self.emit1("prim::not", [is_none], T.BOOL, node)
            if T.NONE in wants:
                return self.emit1("prim::isNone", [v], T.BOOL, node)
            return self.const(False)
        return self.const(any(self.type_matches(v.type, w) for w in wants))

    def isinstance_types(self, e: ast.expr) -> list:
        """The classes (int, ember.Tensor, list...) or script types (List[int]) isinstance's second
        argument names."""
        elts = e.elts if isinstance(e, ast.Tuple) else [e]
        out = []
        for x in elts:
            ref = self.expr_or_ref(x) if not isinstance(x, ast.Subscript) else None
            obj = ref.obj if isinstance(ref, PyRef) else None
            if obj is type(None) or (isinstance(x, ast.Constant) and x.value is None):
                out.append(T.NONE)
            elif obj in _CLASS_KINDS:
                out.append(_CLASS_KINDS[obj])
            elif self.foreign_class_kind(obj) is not None:  # type: ignore[attr-defined]  (StaticObjects')
                out.append(self.foreign_class_kind(obj))  # type: ignore[attr-defined]
            else:
                t = self.annotation(x)
                out.append(t)
        return out

    @staticmethod
    def type_matches(t: T.JitType, want) -> bool:
        foreign = type_matches_foreign(t, want)
        if foreign is not None:
            return foreign
        if isinstance(want, str):  # a bare container class
            return t.kind == want
        return t == want

    def isinstance_refinements(self, test: ast.Call) -> tuple[dict, dict]:
        """isinstance(x, T) on an Optional variable x whose inner type is T: x refined in the true branch."""
        x = test.args[0] if len(test.args) == 2 else None
        if not isinstance(x, ast.Name) or not isinstance(self.env.get(x.id), SValue):
            return {}, {}
        v = self.env[x.id]
        if v.type.kind != "Optional":
            return {}, {}
        try:
            wants = self.isinstance_types(test.args[1])
        except Exception:
            return {}, {}
        inner = v.type.elems[0]
        if T.NONE not in wants and any(self.type_matches(inner, w) for w in wants):
            return {x.id: inner}, {}
        return {}, {}

    # --- NamedTuple and @unused -------------------------------------------------------------------
    def namedtuple_call(self, cls, node: ast.Call) -> SValue:
        t = T.namedtuple_type(cls)
        if t is None:
            raise self.error(f"the fields of {cls.__name__} have types the script language does not have", node)
        args, kwargs = self.args_of(node)
        fields = list(cls._fields)
        values: list = list(args) + [None] * (len(fields) - len(args))
        if len(args) > len(fields):
            raise self.error(f"{cls.__name__}() takes {len(fields)} fields, got {len(args)}", node)
        for k, v in kwargs.items():
            if k not in fields or values[fields.index(k)] is not None:
                raise self.error(f"{cls.__name__}() got an unexpected or repeated field '{k}'", node)
            values[fields.index(k)] = v
        for i, f in enumerate(fields):
            if values[i] is None:
                dflt = cls._field_defaults.get(f, _MISSING)
                if dflt is _MISSING:
                    raise self.error(f"{cls.__name__}() is missing the field '{f}'", node)
                values[i] = self.const(dflt)
            if not T.accepts(t.elems[i], values[i].type):
                raise self.error(f"field '{f}' of {cls.__name__} has type {t.elems[i]}, got {values[i].type}", node)
        return self.emit1("prim::TupleConstruct", values, t, node)

    def unused_call(self, fn, node: ast.Call) -> SValue:
        """A call of an @ember.jit.unused function: compiled as a raise (its body is never compiled)."""
        self.args_of(node)
        ann = typing.get_type_hints(fn).get("return", None)
        out = T.TENSOR if ann is None else T.from_annotation(ann)
        if out is None:
            raise self.error(f"unsupported return annotation {ann!r} of unused function {fn.__qualname__}", node)
        msg = f"{fn.__qualname__} is marked @ember.jit.unused and cannot run in scripted code"
        self.emit("prim::RaiseException", [self.const(msg), self.const("RuntimeError")], [], node)
        return self.emit1("prim::Uninitialized", [], out, node)


_MISSING = object()


def _is_item_call(e: ast.expr) -> bool:
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "item" and \
        not e.args and not e.keywords
