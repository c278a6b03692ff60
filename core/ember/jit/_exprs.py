"""Expressions: constants, names, arithmetic and comparison operators on tensors and numbers (tensor
operands go to the op table's ops, numbers to the language's primitives), and/or/not, conditional
expressions, list and tuple literals, indexing, `is None`, calls of ember ops (functions and Tensor
methods, overloads chosen by their arguments), builtins and other scripted functions (inlined)."""
from __future__ import annotations

import ast
import builtins
import collections
import inspect
import typing
import warnings

from . import _builtins, _builtins_misc, _builtins_tolist, _fork, _fork_compile, _isinstance, _ops, _python_ops
from . import _builtins_autocast, _builtins_unique, _script_helpers
from . import _types as T
from ._compiler import CompilerBase, ModuleRef, ParsedFunction, PyRef, SValue
from ._errors import NotSupportedError
from ._exprs_builtins import BuiltinCalls
from ._exprs_containers import ContainerExprs
from ._exprs_implicit import ImplicitNumbers
from ._exprs_static import StaticObjects, is_static
from ._exprs_objects import ObjectExprs
from ._script_class import info_of
from ._varargs import pack_tensor_varargs
from ._inline_compiled import inline_compiled, is_compiled_module

_TENSOR_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floor_divide",
                  ast.Mod: "remainder", ast.Pow: "pow", ast.MatMult: "matmul"}
_BITWISE = {ast.BitAnd: "bitwise_and", ast.BitOr: "bitwise_or", ast.BitXor: "bitwise_xor"}
_NUMBER_BINOPS = {ast.Add: "prim::add", ast.Sub: "prim::sub", ast.Mult: "prim::mul", ast.Div: "prim::truediv",
                  ast.FloorDiv: "prim::floordiv", ast.Mod: "prim::mod", ast.Pow: "prim::pow"}
_COMPARE = {ast.Lt: ("lt", "prim::lt", "gt"), ast.LtE: ("le", "prim::le", "ge"), ast.Gt: ("gt", "prim::gt", "lt"),
            ast.GtE: ("ge", "prim::ge", "le"), ast.Eq: ("eq", "prim::eq", "eq"), ast.NotEq: ("ne", "prim::ne", "ne")}


def _number_result(a: T.JitType, b: T.JitType) -> T.JitType:
    return T.FLOAT if T.FLOAT in (a, b) else T.INT


class ExprCompiler(StaticObjects, ObjectExprs, BuiltinCalls, ContainerExprs, ImplicitNumbers, CompilerBase):
    def expr(self, node: ast.expr, want: T.JitType | None = None) -> SValue:
        return self.as_value(self.expr_or_ref(node, want), node)

    def expr_or_ref(self, node: ast.expr, want: T.JitType | None = None):
        compiled = getattr(self, "_compiled_once", None)
        if compiled is not None and compiled[0] is node:  # already compiled by a caller that peeked at its type
            self._compiled_once = None
            return compiled[1]
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(f"the {type(node).__name__} expression", node)
        return method(node, want)

    def annotation(self, node: ast.expr) -> T.JitType:
        try:
            obj = eval(compile(ast.Expression(node), "<annotation>", "eval"), {**self.pf.globals, **vars(typing)})
        except Exception as e:
            raise self.error(f"cannot evaluate the annotation {ast.unparse(node)}: {e}", node) from None
        t = T.from_annotation(obj)
        if t is None:
            raise self.error(f"unsupported annotation {ast.unparse(node)}", node)
        return t

    # --- leaves -----------------------------------------------------------------------------------
    def expr_Constant(self, node: ast.Constant, want) -> SValue:
        if node.value is not None and not isinstance(node.value, (bool, int, float, str)):
            raise self.unsupported(f"a constant of type {type(node.value).__name__}", node)
        return self.const(node.value)

    def expr_Name(self, node: ast.Name, want):
        return self.lookup(node.id, node)

    def expr_Attribute(self, node: ast.Attribute, want):
        base = self.expr_or_ref(node.value)
        if isinstance(base, ModuleRef):
            return self.module_attr(base, node.attr, node)
        if isinstance(base, PyRef):
            if not hasattr(base.obj, node.attr):
                raise self.error(f"{getattr(base.obj, '__name__', base.obj)} has no attribute '{node.attr}'", node)
            obj = getattr(base.obj, node.attr)
            if isinstance(obj, (bool, int, float, str)):
                return self.const(obj)
            return self.dtype_or_ref(obj)
        if base.type.kind == "Class":
            return self.object_attr(base, node.attr, node)
        if base.type == T.TENSOR and node.attr == "shape":
            return self.emit1("prim::sizes", [base], T.list_of(T.INT), node)
        if base.type == T.TENSOR and node.attr == "dtype":  # a dtype is its ScalarType code in scripted code
            return self.emit1("prim::dtype", [base], T.INT, node)
        if base.type == T.TENSOR and node.attr == "device":  # a device is its string in scripted code ("cpu")
            return self.emit1("prim::device", [base], T.STR, node)
        if base.type == T.TENSOR and node.attr == "ndim":
            return self.emit1("prim::dim", [base], T.INT, node)
        if base.type == T.TENSOR and node.attr in ("real", "imag"):  # views of a complex tensor's parts
            return self.call_op(node.attr, [base], {}, node)
        if base.type.named is not None and node.attr in base.type.named._fields:
            k = base.type.named._fields.index(node.attr)
            return self.emit1("prim::TupleIndex", [base, self.const(k)], base.type.elems[k], node)
        raise self.unsupported(f"the attribute '{node.attr}' of a {base.type}", node)

    def expr_List(self, node: ast.List, want) -> SValue:
        items = [self.expr(e) for e in node.elts]
        if not items:
            t = want if want is not None and want.kind == "List" else T.list_of(T.TENSOR)  # TorchScript's default
            v = self.emit1("prim::ListConstruct", [], t, node)
            if want is None:
                self.empty_lists.add(v.id)  # an op's list argument of another type may take it
            return v
        elem = items[0].type
        for v, e in zip(items[1:], node.elts[1:]):
            u = T.unify(elem, v.type)
            if u is None:
                raise self.error(f"list elements must all have one type; found {elem} and {v.type}", e)
            elem = u
        return self.emit1("prim::ListConstruct", items, T.list_of(elem), node)

    def expr_Tuple(self, node: ast.Tuple, want) -> SValue:
        items = [self.expr(e) for e in node.elts]
        return self.emit1("prim::TupleConstruct", items, T.tuple_of(v.type for v in items), node)

    # --- operators --------------------------------------------------------------------------------
    def expr_BinOp(self, node: ast.BinOp, want) -> SValue:
        return self.binop(node.op, self.expr(node.left), self.expr(node.right), node)

    def binop(self, op: ast.operator, a: SValue, b: SValue, node: ast.AST) -> SValue:
        items = [v for v in (a, b) if v.id in self.item_numbers]
        if items:  # x + t.item(): the tensor op takes the number as its Scalar; number arithmetic needs its type
            if T.TENSOR in (a.type, b.type) and type(op) in _TENSOR_BINOPS:
                return self.call_op(_TENSOR_BINOPS[type(op)], [a, b], {}, node)
            raise self.item_unsupported(node)
        if T.TENSOR in (a.type, b.type) and (a.type.is_number or a.type == T.TENSOR) and \
                (b.type.is_number or b.type == T.TENSOR) and type(op) in _TENSOR_BINOPS:
            return self.call_op(_TENSOR_BINOPS[type(op)], [a, b], {}, node)
        if a.type.is_number and b.type.is_number and type(op) in _NUMBER_BINOPS:
            kind = _NUMBER_BINOPS[type(op)]
            out = T.FLOAT if kind in ("prim::truediv", "prim::pow") else _number_result(a.type, b.type)
            return self.emit1(kind, [a, b], out, node)
        if type(op) in _BITWISE and T.TENSOR in (a.type, b.type) and all(v.type == T.TENSOR or v.type in (T.INT, T.BOOL)
                                                                         for v in (a, b)):
            first, second = (a, b) if a.type == T.TENSOR else (b, a)  # the ops take a tensor first; all commute
            return self.call_op(_BITWISE[type(op)], [first, second], {}, node)
        if isinstance(op, ast.Add) and a.type.kind == b.type.kind == "Tuple":  # concatenation
            items = self.tuple_items(a, node) + self.tuple_items(b, node)
            return self.emit1("prim::TupleConstruct", items, T.tuple_of(v.type for v in items), node)
        if isinstance(op, ast.Add) and a.type.kind == "List" and T.unify(a.type, b.type) is not None:
            return self.emit1("prim::ListAdd", [a, b], T.unify(a.type, b.type), node)
        formatted = self.percent_format(a, b, node) if isinstance(op, ast.Mod) and a.type == T.STR else None
        if formatted is not None:  # "%d of %s" % (n, s)
            return formatted
        if isinstance(op, ast.Add) and a.type == b.type == T.STR:
            return self.emit1("prim::StrAdd", [a, b], T.STR, node)
        if isinstance(op, ast.Mult) and (a.type.kind in ("List", "str")) != (b.type.kind in ("List", "str")):
            seq, n = (a, b) if a.type.kind in ("List", "str") else (b, a)
            if n.type == T.INT:
                return self.emit1("prim::ListMul" if seq.type.kind == "List" else "prim::StrMul", [seq, n], seq.type,
                                  node)
        raise self.error(f"unsupported operand types for {type(op).__name__}: {a.type} and {b.type}", node)

    def expr_UnaryOp(self, node: ast.UnaryOp, want) -> SValue:
        v = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            b = self.truth(v, node.operand)
            if b.id in self.const_values:
                return self.const(not self.const_values[b.id])
            return self.emit1("prim::not", [b], T.BOOL, node)
        if isinstance(node.op, ast.UAdd) and (v.type.is_number or v.type == T.TENSOR):
            return v
        if isinstance(node.op, ast.USub):
            if v.type == T.TENSOR:
                return self.call_op("neg", [v], {}, node)
            if v.type.is_number:
                return self.emit1("prim::neg", [v], T.INT if v.type == T.BOOL else v.type, node)
        raise self.error(f"unsupported operand type for {type(node.op).__name__}: {v.type}", node)

    def truth(self, v: SValue, node: ast.AST) -> SValue:
        """A bool from a bool, a number, or a one-element tensor (as `if t:` is in Python)."""
        if v.type == T.BOOL:
            return v
        if v.type.is_number or v.type == T.TENSOR:
            return self.emit1("prim::Bool", [v], T.BOOL, node)
        if v.type.kind in ("List", "Dict", "str"):  # non-empty, as Python tests them
            n = self.emit1({"List": "prim::len", "Dict": "prim::DictLen", "str": "prim::StrLen"}[v.type.kind], [v],
                           T.INT, node)
            return self.emit1("prim::ne", [n, self.const(0)], T.BOOL, node)
        raise self.error(f"a condition must be a bool, a number or a Tensor, got {v.type}", node)

    def condition(self, node: ast.expr) -> SValue:
        return self.truth(self.expr(node), node)

    def expr_BoolOp(self, node: ast.BoolOp, want) -> SValue:
        # a and b: If(a) then b else False; a or b: If(a) then True else b (short-circuit, as Python)
        left = self.condition(node.values[0])
        is_and = isinstance(node.op, ast.And)
        for k, rhs in enumerate(node.values[1:], 1):
            if left.id in self.const_values:  # known when compiling (isinstance, `is None` on a non-Optional)
                if bool(self.const_values[left.id]) != is_and:
                    return left
                left = self.condition(rhs)
                continue
            nid, _ = self.g.append(self.block, "prim::If", [left.id], [])
            then_b, else_b = self.g.add_block(nid), self.g.add_block(nid)
            # `x is not None and x > 0`: x is refined where the right side runs
            seen = self.refinements(ast.BoolOp(node.op, node.values[:k]) if k > 1 else node.values[0])
            refine = seen[0] if is_and else seen[1]
            taken = self.in_block(then_b if is_and else else_b, self.refined, refine, self.condition, rhs)
            fixed = self.in_block(else_b if is_and else then_b, self.const, not is_and)
            self.g.set_returns(then_b, [(taken if is_and else fixed).id])
            self.g.set_returns(else_b, [(fixed if is_and else taken).id])
            left = SValue(self.g.add_output(nid, "bool"), T.BOOL)
        return left

    def expr_IfExp(self, node: ast.IfExp, want) -> SValue:
        cond = self.condition(node.test)
        if cond.id in self.const_values:  # known when compiling: only the taken branch is compiled, as in `if`
            return self.expr(node.body if self.const_values[cond.id] else node.orelse, want)
        refine_then, refine_else = self.refinements(node.test)  # `x[i] if x is not None else y`, as in `if`
        nid, _ = self.g.append(self.block, "prim::If", [cond.id], [])
        then_b, else_b = self.g.add_block(nid), self.g.add_block(nid)
        a = self.in_block(then_b, self.refined_expr, node.body, refine_then)
        b = self.in_block(else_b, self.refined_expr, node.orelse, refine_else)
        t = T.unify(a.type, b.type)
        if t is None:
            raise self.error(f"the branches of a conditional expression have types {a.type} and {b.type}", node)
        self.g.set_returns(then_b, [a.id])
        self.g.set_returns(else_b, [b.id])
        return SValue(self.g.add_output(nid, str(t)), t)

    def refined_expr(self, node: ast.expr, refine: dict) -> SValue:
        """node compiled with the variables refine names cast to their refined types (restored after)."""
        before = {name: self.env[name] for name in refine}
        for name, t in refine.items():
            self.env[name] = self.emit1("prim::unchecked_cast", [self.env[name]], t)
        try:
            return self.expr(node)
        finally:
            self.env.update(before)

    def expr_Compare(self, node: ast.Compare, want) -> SValue:
        module_test = self.module_is_none(node)
        if module_test is not None:
            return module_test
        folded, left = self.static_compare(node)  # an enum member on the left folds the comparison
        if folded is not None:
            return folded
        left = self.as_value(left, node.left) if left is not None else self.expr(node.left)
        result = self.compare(node.ops[0], left, self.expr(node.comparators[0]), node)
        for k in range(1, len(node.ops)):
            # a < b < c is (a < b) and (b < c), b evaluated once; the later parts run only when needed
            if result.type != T.BOOL:
                raise self.unsupported("a chained comparison of tensors", node)
            nid, _ = self.g.append(self.block, "prim::If", [result.id], [])
            then_b, else_b = self.g.add_block(nid), self.g.add_block(nid)

            def rest(k=k):
                lhs = self.expr(node.comparators[k - 1])
                return self.truth(self.compare(node.ops[k], lhs, self.expr(node.comparators[k]), node), node)

            self.g.set_returns(then_b, [self.in_block(then_b, rest).id])
            self.g.set_returns(else_b, [self.in_block(else_b, self.const, False).id])
            result = SValue(self.g.add_output(nid, "bool"), T.BOOL)
        return result

    def module_is_none(self, node: ast.Compare) -> SValue | None:
        """`self.downsample is None` where the attribute holds a submodule (or any Python object the compiler
        resolves, a function say): known when compiling."""
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return None
        sides = (node.left, node.comparators[0])
        if not any(isinstance(x, ast.Constant) and x.value is None for x in sides):
            return None
        other = sides[1] if isinstance(sides[0], ast.Constant) and sides[0].value is None else sides[0]
        if not isinstance(other, (ast.Attribute, ast.Name)):
            return None
        ref = self.expr_or_ref(other)
        if not isinstance(ref, PyRef):
            return None
        return self.const(isinstance(node.ops[0], ast.IsNot))

    def compare(self, op: ast.cmpop, a: SValue, b: SValue, node: ast.AST) -> SValue:
        if isinstance(op, (ast.Is, ast.IsNot)):
            if b.type != T.NONE and a.type != T.NONE:
                raise self.unsupported("'is' with anything but None", node)
            v = a if b.type == T.NONE else b
            if v.type == T.NONE:
                is_none = self.const(True)
            elif T.without_none(v.type) == v.type and v.type.kind != "Any":
                is_none = self.const(False)  # statically known, as TorchScript folds it
            else:
                is_none = self.emit1("prim::isNone", [v], T.BOOL, node)
            if is_none.id in self.const_values:
                return self.const(self.const_values[is_none.id] == isinstance(op, ast.Is))
            return is_none if isinstance(op, ast.Is) else self.emit1("prim::not", [is_none], T.BOOL, node)
        if isinstance(op, (ast.In, ast.NotIn)):
            found = self.contains(a, b, node)
            return found if isinstance(op, ast.In) else self.emit1("prim::not", [found], T.BOOL, node)
        if type(op) not in _COMPARE:
            raise self.unsupported(f"the {type(op).__name__} comparison", node)
        if a.type.kind == "Class" and isinstance(op, (ast.Eq, ast.NotEq)):  # the class's __eq__
            eq = self.magic(a, "eq", [b], node)
            return eq if isinstance(op, ast.Eq) else self.emit1("prim::not", [eq], T.BOOL, node)
        if a.type == b.type == T.STR and type(op) in (ast.Lt, ast.LtE, ast.Gt, ast.GtE):
            return self.emit1("prim::str_" + _COMPARE[type(op)][0], [a, b], T.BOOL, node)
        tensor_op, number_op, flipped = _COMPARE[type(op)]
        if a.id in self.const_values and b.id in self.const_values and a.type != T.TENSOR:
            x, y = self.const_values[a.id], self.const_values[b.id]  # both known when compiling: folded
            try:
                return self.const(bool({"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y, "eq": x == y,
                                        "ne": x != y}[tensor_op]))
            except TypeError:
                pass
        if a.type == b.type and a.type.kind in ("List", "Tuple") and tensor_op in ("eq", "ne"):
            return self.emit1(number_op, [a, b], T.BOOL, node)
        numbers = [v.type.is_number or v.id in self.item_numbers for v in (a, b)]  # t.item() > 0: compared by value
        if a.type == T.TENSOR and (b.type == T.TENSOR or numbers[1]):
            return self.call_op(tensor_op, [a, b], {}, node)
        if b.type == T.TENSOR and numbers[0]:
            return self.call_op(flipped, [b, a], {}, node)
        if all(numbers) or (a.type == b.type == T.STR and number_op.endswith(("eq", "ne"))):
            return self.emit1(number_op, [a, b], T.BOOL, node)
        raise self.error(f"cannot compare {a.type} and {b.type} with {type(op).__name__}", node)

    def refined(self, refine: dict, fn, *args):
        """fn(*args) compiled with the variables in refine cast to their refined types."""
        saved = {n: self.env[n] for n in refine}
        for n, t in refine.items():
            self.env[n] = self.emit1("prim::unchecked_cast", [self.env[n]], t)
        try:
            return fn(*args)
        finally:
            for n, v in saved.items():
                if self.env.get(n) is not None and self.env[n].type == refine[n]:
                    self.env[n] = v

    def refinements(self, test: ast.expr) -> tuple[dict, dict]:
        """`x is None` / `x is not None` / isinstance(x, T) on an Optional variable: its refined type in each
        branch; through `and` (every part holds in the true branch), `or` (none holds in the false one)
        and `not`."""
        if isinstance(test, ast.BoolOp):
            parts = [self.refinements(v) for v in test.values]
            if isinstance(test.op, ast.And):
                return {k: v for then, _ in parts for k, v in then.items()}, {}
            return {}, {k: v for _, els in parts for k, v in els.items()}
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            then, els = self.refinements(test.operand)
            return els, then
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" and \
                "isinstance" not in self.env:
            return self.isinstance_refinements(test)
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "isinstance":
            return self.isinstance_refinements(test)  # ember.jit.isinstance
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) and \
                isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None and \
                isinstance(test.ops[0], (ast.Is, ast.IsNot)):
            v = self.env.get(test.left.id)
            if isinstance(v, SValue) and T.without_none(v.type) != v.type:
                inner = {test.left.id: T.without_none(v.type)}
                return ({}, inner) if isinstance(test.ops[0], ast.Is) else (inner, {})
        return {}, {}

    # --- calls ------------------------------------------------------------------------------------
    def expr_Call(self, node: ast.Call, want) -> SValue:
        if want is not None and isinstance(node.func, ast.Attribute) and node.func.attr == "tolist" and \
                not node.args and not node.keywords:
            base = self.expr(node.func.value)
            if base.type == T.TENSOR:  # t.tolist() where its type is annotated (_builtins_tolist.py)
                if str(want) not in _builtins_tolist.TOLIST:
                    raise self.unsupported(f"Tensor.tolist() as a {want} (List[int|float|bool], 1 or 2 deep)", node)
                return self.inline_call(_builtins_tolist.TOLIST[str(want)], [base], {}, node)
            self._compiled_once = (node.func.value, base)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.unsupported("*args or **kwargs in a call", node)
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call) and \
                isinstance(node.func.value.func, ast.Name) and node.func.value.func.id == "super" and \
                not node.func.value.args:
            return self.super_call(node)
        if isinstance(node.func, ast.Attribute):
            base = self.expr_or_ref(node.func.value)
            if isinstance(base, SValue):
                return self.method_call(base, node.func.attr, node)
            if isinstance(base, ModuleRef):
                target = self.module_attr(base, node.func.attr, node.func)
            elif hasattr(base.obj, node.func.attr):
                target = PyRef(getattr(base.obj, node.func.attr))
            else:
                raise self.error(f"{getattr(base.obj, '__name__', base.obj)} has no attribute '{node.func.attr}'",
                                 node.func)
        else:
            target = self.expr_or_ref(node.func)
        if isinstance(target, SValue) and target.type.kind == "Class":  # obj(...): its class's __call__
            args, kwargs = self.args_of(node)
            return self.call_object_method(target, "__call__", args, kwargs, node)
        if isinstance(target, SValue):
            raise self.error(f"a value of type {target.type} is not callable", node.func)
        if isinstance(target, ModuleRef) and is_compiled_module(target.obj):  # a compiled submodule: its graph
            return inline_compiled(self, target.obj, node)
        if isinstance(target, ModuleRef):
            args, kwargs = self.args_of(node)
            return self.inline_call(scripted_forward(type(target.obj)), args, kwargs, node, target)
        return self.call_python(target.obj, node)

    def module_attr(self, ref: ModuleRef, attr: str, node: ast.AST):
        """A module attribute: submodules stay modules; tensors (parameters, buffers) and the bool/int/float
        attributes not listed in __constants__ become graph inputs read at each call; the rest are
        constants."""
        import ember

        m = ref.obj
        if attr in getattr(m, "_modules", {}):
            sub = m._modules[attr]
            return ModuleRef(sub) if sub is not None else self.const(None)
        try:
            v = getattr(m, attr)
        except AttributeError:
            raise self.error(f"module {type(m).__name__} has no attribute '{attr}'", node) from None
        constant = attr in getattr(m, "__constants__", ()) or _is_final(type(m), attr)
        object_type = self.object_type_of(v)
        if object_type is not None:  # a scripted class's or C++ class's object: read at each call
            return self.attr_input(m, attr, object_type)
        if isinstance(v, ember.Tensor) or (type(v) in (bool, int, float) and not constant):
            return self.attr_input(m, attr, T.TENSOR if isinstance(v, ember.Tensor) else self.type_of_constant(v))
        if isinstance(v, list) and v and all(isinstance(t, ember.Tensor) for t in v):
            return self.attr_input(m, attr, T.list_of(T.TENSOR))  # read at each call, as parameters are
        if v is None or isinstance(v, (bool, int, float, str, tuple, list, dict)):
            try:
                return self.const(v)
            except (TypeError, ValueError):
                pass
        static = self.static_attr(v)  # an enum member, a dtype
        if static is not None:
            return static
        if callable(v) and getattr(v, "__self__", None) is m:
            return PyRef(v)  # a method: inlined with self bound
        if callable(v) and not isinstance(v, type):
            return PyRef(v)  # a function held by the module (an activation): called as scripted code calls it
        if _dtype_code(v) is not None:  # a dtype attribute: its ScalarType code, as dtypes are in scripted code
            return self.const(_dtype_code(v))
        raise self.unsupported(f"the attribute '{attr}' of type {type(v).__name__} of {type(m).__name__}", node)

    def attr_input(self, m, attr: str, t: T.JitType) -> SValue:
        root = self.root
        key = (id(m), attr)
        if key not in root.attr_values:
            vid = self.g.add_param(self.g.top, str(t), f"self.{attr}")
            root.attr_values[key] = SValue(vid, t)
            root.attr_inputs.append((m, attr))
        return root.attr_values[key]

    def args_of(self, node: ast.Call) -> tuple[list[SValue], dict[str, SValue]]:
        """A call's arguments: values, and modules (passed to functions that take a module)."""
        def arg(a):
            v = self.expr_or_ref(a)
            return v if isinstance(v, ModuleRef) or is_static(v) else self.as_value(v, a)

        return [arg(a) for a in node.args], {k.arg: arg(k.value) for k in node.keywords}

    def method_call(self, base: SValue, name: str, node: ast.Call) -> SValue:
        args, kwargs = self.args_of(node)
        if name == "$add":  # a comprehension's element
            return self.comp_add(base, args, node)
        if base.type.kind in ("List", "Dict", "str"):
            return self.container_method(base, name, args, kwargs, node)
        if base.type.kind == "Class":
            return self.call_object_method(base, name, args, kwargs, node)
        if base.type != T.TENSOR:
            raise self.unsupported(f"the method '{name}' of a {base.type}", node)
        if name == "item" and not args and not kwargs:
            v = self.emit1("prim::item", [base], T.ANY, node)
            self.item_numbers.add(v.id)
            return v
        shape_fns = {"dim": ("prim::dim", T.INT), "numel": ("prim::numel", T.INT), "detach": ("prim::detach", T.TENSOR),
                     "is_floating_point": ("prim::is_floating_point", T.BOOL),
                     "is_complex": ("prim::is_complex", T.BOOL)}
        if name in shape_fns and not args and not kwargs:
            return self.emit1(shape_fns[name][0], [base], shape_fns[name][1], node)
        if name == "size" and not kwargs and len(args) <= 1:
            if not args:
                return self.emit1("prim::sizes", [base], T.list_of(T.INT), node)
            dim = args[0]
            if dim.type == T.TENSOR:  # x.size(t): size.int's dim converted (IntImplicit)
                dim = self.emit1("prim::IntImplicit", [dim], T.INT, node)
            return self.emit1("prim::size", [base, dim], T.INT, node)
        if name == "unique":  # ember.unique's boolean dispatch, self first
            return _builtins_unique.compile_unique(self, False, [base] + args, kwargs, node)
        if name == "unique_consecutive":
            return self.inline_call(_builtins_unique.method_unique_consecutive, [base] + args, kwargs, node)
        if not _ops.candidates(name) and name in _builtins_misc.TENSOR_METHODS:  # a method outside the op table
            fn, varargs = _builtins_misc.TENSOR_METHODS[name]
            if varargs and args and all(isinstance(a, SValue) and a.type in (T.INT, T.TENSOR) for a in args):
                ints = [self.emit1("prim::IntImplicit", [a], T.INT, node) if a.type == T.TENSOR else a for a in args]
                args = [self.emit1("prim::ListConstruct", ints, T.list_of(T.INT), node)]
            return self.inline_call(fn, [base] + args, kwargs, node)
        return self.call_op(name, [base] + args, kwargs, node)

    def call_python(self, callee, node: ast.Call) -> SValue:
        if getattr(builtins, getattr(callee, "__name__", ""), None) is callee:
            return self.call_builtin(callee.__name__, node)
        if callee is _script_helpers.annotate:
            if len(node.args) != 2 or node.keywords:
                raise self.error("ember.jit.annotate takes a type and a value", node)
            want = self.annotation(node.args[0])
            v = self.expr(node.args[1], want)
            if not T.accepts(want, v.type):
                raise self.error(f"ember.jit.annotate: the value has type {v.type}, not {want}", node.args[1])
            return SValue(v.id, want)
        if callee is _script_helpers.is_scripting:
            return self.const(True)
        if inspect.ismethod(callee) and isinstance(callee.__self__, nn_module()):
            args, kwargs = self.args_of(node)
            return self.inline_call(callee.__func__, args, kwargs, node, ModuleRef(callee.__self__))
        if getattr(callee, "_ember_jit_ignore", False):
            return self.python_op(callee, node)
        if callee is warnings.warn:  # Python's warning machinery, reached from the graph
            args, kwargs = self.args_of(node)
            kwargs.pop("stacklevel", None)  # where Python reports it from: the graph has no frames to skip
            if kwargs or len(args) != 1 or args[0].type != T.STR:
                raise self.unsupported("warnings.warn with anything but a message", node)
            return self.python_call(_python_ops._warn, "warnings.warn", args, T.NONE, node)
        if getattr(callee, "_ember_jit_unused", False):
            return self.unused_call(callee, node)
        if T.is_namedtuple_class(callee):
            return self.namedtuple_call(callee, node)
        if callee is collections.OrderedDict and not node.args and not node.keywords:  # TorchScript's Dict[str, Tensor]
            return self.emit1("prim::DictConstruct", [], T.dict_of(T.STR, T.TENSOR), node)
        if info_of(callee) is not None:
            return self.construct_object(callee, node)
        if callee is _tensor_factory():
            return self.tensor_call(node)
        if callee is _isinstance.isinstance:
            return self.call_builtin("isinstance", node)
        if getattr(callee, "qualified_name", "").startswith("__torch__.torch.classes."):
            return self.construct_custom(callee, node)
        if _builtins_unique.is_unique(callee):  # ember.unique / unique_consecutive: by their constant flags
            args, kwargs = self.args_of(node)
            return _builtins_unique.compile_unique(self, _builtins_unique.is_consecutive(callee), args, kwargs, node)
        if callee in _builtins.SCRIPT_IMPLS:
            args, kwargs = self.args_of(node)
            args = pack_tensor_varargs(self, callee, args, node)
            impl = _builtins.SCRIPT_IMPLS[callee]  # in eager's autocast_policy casts, if callee has them
            return _builtins_autocast.with_policy(self, callee, lambda a, k: self.inline_call(impl, a, k, node), args,
                                                  kwargs, node)
        if getattr(callee, "_ember_script_impl", None) is not None:  # a library's script version of it
            args, kwargs = self.args_of(node)
            return self.inline_call(callee._ember_script_impl, args, kwargs, node)
        if _ops.registered_op_name(callee) is not None:  # ember.ops.NS.name: an extension's op, by its schema
            args, kwargs = self.args_of(node)
            return self.call_schema(_ops.qualified_schema(_ops.registered_op_name(callee)), args, kwargs, node)
        if isinstance(callee, _ops.AtenOp):
            args, kwargs = self.args_of(node)
            return self.call_op(callee.name, args, kwargs, node)
        library_op = _ops.library_op_name(callee)
        if library_op is not None:  # an extension's op: ember.ops.NAMESPACE.NAME
            args, kwargs = self.args_of(node)
            return self.call_op(library_op, args, kwargs, node)
        name = _ops.op_name_of(callee)
        if name is not None:
            args, kwargs = self.args_of(node)
            args = pack_tensor_varargs(self, callee, args, node)
            return _builtins_autocast.with_policy(
                self, callee, lambda a, k: self.call_maybe_inplace(callee, name, a, k, node), args, kwargs, node)
        if callee is _fork.fork or callee is _fork.wait:
            return _fork_compile.compile_fork_or_wait(self, callee, node)
        if getattr(callee, "_traced", False) or is_compiled_module(callee):  # compiled already: graph inlined
            return inline_compiled(self, callee, node)
        target = getattr(callee, "__wrapped_script_fn__", callee)
        if callable(target) and hasattr(target, "__code__"):
            args, kwargs = self.args_of(node)
            return self.inline_call(target, args, kwargs, node)
        raise self.unsupported(f"calling {getattr(callee, '__qualname__', repr(callee))}", node.func)

    def super_call(self, node: ast.Call) -> SValue:
        """super().method(...) in a module's method: the method of the next class in the module's MRO after the
        one defining the method being compiled, inlined with the same self."""
        me = next((v for v in self.env.values() if isinstance(v, ModuleRef)), None)
        if me is None:
            raise self.unsupported("super() outside a module's method", node)
        mro = type(me.obj).__mro__
        owner = next((i for i, k in enumerate(mro) if any(getattr(f, "__code__", None) is self.pf.fn.__code__
                                                          for f in vars(k).values())), None)
        attr = node.func.attr
        fn = next((vars(k)[attr] for k in mro[owner + 1:] if attr in vars(k)), None) if owner is not None else None
        if fn is None or not inspect.isfunction(fn):
            raise self.error(f"super() of {type(me.obj).__name__} has no method '{attr}' to call", node)
        args, kwargs = self.args_of(node)
        return self.inline_call(fn, args, kwargs, node, me)

    def dtype_or_ref(self, obj):
        """ember.float32 and the like are ints (their ScalarType codes) in scripted code; other objects stay
        Python references."""
        code = _dtype_code(obj)
        return self.const(code) if code is not None else PyRef(obj)

    def call_maybe_inplace(self, callee, name: str, args: list, kwargs: dict, node) -> SValue:
        """F.relu(x, inplace) and the like: the op, or its in-place form, by the `inplace` argument of the
        Python wrapper (by keyword or position) the op itself does not take."""
        sch = _ops.schema(name)
        if sch is None or any(a.name == "inplace" for a in sch.args):
            return self.call_op(name, args, kwargs, node)
        flag = kwargs.pop("inplace", None)
        try:
            params = list(inspect.signature(callee).parameters)
        except (TypeError, ValueError):
            params = []
        if flag is None and "inplace" in params and len(args) > params.index("inplace"):
            flag = args.pop(params.index("inplace"))
        if flag is None:
            return self.call_op(name, args, kwargs, node)
        if flag.type != T.BOOL:
            raise self.error(f"inplace must be a bool, got {flag.type}", node)
        if flag.id in self.const_values:
            return self.call_op(name + "_" if self.const_values[flag.id] else name, args, kwargs, node)
        nid, _ = self.g.append(self.block, "prim::If", [flag.id], [])  # decided at run time
        outs = []
        for op in (name + "_", name):
            blk = self.g.add_block(nid)
            v = self.in_block(blk, self.call_op, op, args, dict(kwargs), node)
            self.g.set_returns(blk, [v.id])
            outs.append(v)
        return SValue(self.g.add_output(nid, str(outs[0].type)), outs[0].type)

    def python_op(self, fn, node: ast.Call) -> SValue:
        """A call of an @ember.jit.ignore'd function: run by Python when the graph reaches it."""
        if node.keywords:
            raise self.unsupported("keyword arguments to an ignored function", node)
        args = [self.expr(a) for a in node.args]
        ann = typing.get_type_hints(fn).get("return", None) if hasattr(fn, "__annotations__") else None
        out = T.TENSOR if ann is None else T.from_annotation(ann)
        if out is None:
            raise self.error(f"unsupported return annotation {ann!r} of ignored function {fn.__qualname__}", node)
        vid = self.g.append_python_op(self.block, fn, _python_ops.ignored_name(fn), [a.id for a in args], str(out))
        return SValue(vid, out)

    def call_op(self, name: str, args: list[SValue], kwargs: dict[str, SValue], node: ast.AST) -> SValue:
        """The first of name's ops (the op, then its overloads) whose schema the arguments fit."""
        if name == "split" and len(args) >= 2 and args[1].type.kind == "List":  # split(t, [sizes]), as eager
            name = "split_with_sizes"
        reasons = []
        # every overload as the arguments are, then with a Tensor converted where a number is taken (TorchScript's
        # schema matching: x.pow(t) stays pow.Tensor, x.view(t) converts t)
        for implicit in (False, True):
            for cand in _ops.candidates(name):
                sch = _ops.schema(cand)
                bound = self.bind(sch, args, dict(kwargs), implicit)
                if isinstance(bound, str):
                    if not implicit:
                        reasons.append(f"  {cand}: {bound}")
                    continue
                outs = self.emit(sch.kind, bound, sch.returns, node)
                if len(outs) == 1:
                    return outs[0]
                return self.emit1("prim::TupleConstruct", outs, T.tuple_of(sch.returns), node)
            if not any(isinstance(a, SValue) and a.type == T.TENSOR for a in list(args) + list(kwargs.values())):
                break
        if not reasons:
            raise self.error(f"unknown op {name}: the op table has no op of that name", node)
        got = ", ".join([str(a.type) for a in args] + [f"{k}={v.type}" for k, v in kwargs.items()])
        raise self.error(f"arguments for call of {name} are not valid (got {got}):\n" + "\n".join(reasons), node)

    def call_schema(self, sch: _ops.Schema, args: list[SValue], kwargs: dict[str, SValue], node: ast.AST) -> SValue:
        bound = self.bind(sch, args, dict(kwargs))
        if isinstance(bound, str) and not isinstance(self.bind(sch, args, dict(kwargs), True), str):
            bound = self.bind(sch, args, dict(kwargs), True)
        if isinstance(bound, str):
            raise self.error(f"arguments for call of {sch.kind} are not valid: {bound}", node)
        outs = self.emit(sch.kind, bound, sch.returns, node)
        return outs[0] if len(outs) == 1 else self.emit1("prim::TupleConstruct", outs, T.tuple_of(sch.returns), node)

    def bind(self, sch: _ops.Schema, args: list[SValue], kwargs: dict[str, SValue],
             implicit: bool = False) -> list[SValue] | str:
        """The inputs of a call of sch, defaults filled in; or why the arguments do not fit. implicit: a Tensor may
        stand for an int, float or Scalar (converted at run time, as TorchScript's schema matching converts)."""
        positional = [a for a in sch.args if not a.kwonly]
        args = self.pack_int_varargs(positional, args, implicit)
        if len(args) > len(positional):
            return f"takes {len(positional)} positional arguments, got {len(args)}"
        out = []
        for i, a in enumerate(sch.args):
            if i < len(args) and not a.kwonly:
                v = args[i]
                if a.name in kwargs:
                    return f"got multiple values for argument '{a.name}'"
            elif a.name in kwargs:
                v = kwargs.pop(a.name)
            elif a.default is not _ops._NO_DEFAULT:
                out.append(self.default_const(a))
                continue
            else:
                return f"argument '{a.name}' is missing"
            fitted = self.fit(a, v)
            if fitted is None and implicit and isinstance(v, SValue) and v.type == T.TENSOR:
                fitted = self.implicit_number(a.type, v)
            if fitted is None:
                return f"argument '{a.name}' expects {a.type}, got {v.type}"
            out.append(fitted)
        if kwargs:
            return f"unexpected keyword argument '{next(iter(kwargs))}'"
        return out

    def default_const(self, a: _ops.SchemaArg) -> SValue:
        if a.default is None:
            return self.const(None)
        if isinstance(a.default, list):
            return self.const(a.default, T.list_of(T.INT)) if a.default else \
                self.emit1("prim::ListConstruct", [], T.list_of(T.INT))
        return self.const(a.default)

    def fit(self, a: _ops.SchemaArg, v: SValue) -> SValue | None:
        t = a.type
        optional = t.endswith("?")
        if optional and v.type == T.NONE:
            return v
        base = t.rstrip("?")
        if base == "TensorLike":
            return v if v.type == T.TENSOR or v.type.is_number or v.id in self.item_numbers else None
        if base == "Scalar":
            return v if v.type.is_number or v.id in self.item_numbers else None
        if base in ("int[]", "Tensor[]") and v.id in self.empty_lists:
            return self.emit1("prim::ListConstruct", [], _ops._ARG_TYPES[base])  # a literal [] of the op's list type
        if base == "int[]" and v.type == T.INT:
            return self.emit1("prim::ListConstruct", [v], T.list_of(T.INT))
        if base == "int[]" and v.type.kind == "Tuple" and all(e == T.INT for e in v.type.elems):
            items = [self.emit1("prim::TupleIndex", [v, self.const(k)], T.INT) for k in range(len(v.type.elems))]
            return self.emit1("prim::ListConstruct", items, T.list_of(T.INT))
        if base == "Tensor[]" and v.type.kind == "Tuple" and all(e == T.TENSOR for e in v.type.elems):
            items = [self.emit1("prim::TupleIndex", [v, self.const(k)], T.TENSOR) for k in range(len(v.type.elems))]
            return self.emit1("prim::ListConstruct", items, T.list_of(T.TENSOR))  # ember.cat((a, b), 1)
        if base == "float" and v.type in (T.INT, T.FLOAT):
            return v
        want = _ops._ARG_TYPES[t]
        return v if T.accepts(want, v.type) else None

    def inline_call(self, fn, args: list, kwargs: dict, node: ast.AST, self_ref: ModuleRef | None = None) -> SValue:
        """Compiles fn's body into the current block with its parameters bound to the call's arguments
        (defaults as constants; a method's self to its module): the call is inlined, as TorchScript's
        inlining pass leaves it."""
        frame = (fn, id(self_ref.obj) if self_ref is not None else None)
        if frame in self.stack:
            raise self.error(f"recursive calls are not supported: {fn.__qualname__} calls itself "
                             f"(through {' -> '.join(f.__qualname__ for f, _ in self.stack)})", node,
                             cls=NotSupportedError)
        pf = ParsedFunction(fn)
        if self_ref is not None:
            args = [self_ref] + list(args)
        try:
            bound = pf.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(f"call of {fn.__qualname__}: {e}", node) from None
        values = []
        for name, p in pf.signature.parameters.items():
            if name in bound.arguments:
                values.append(bound.arguments[name])
            elif isinstance(p.default, (bool, int, float, str)) or p.default is None:
                values.append(self.const(p.default))
            elif self.static_attr(p.default) is not None:  # an enum member, a dtype
                values.append(self.static_attr(p.default))
            else:
                raise self.error(f"the default of {fn.__qualname__}'s argument '{name}' is not a constant", node)
        callee = type(self)(self.g, self.block, pf, self.stack + [frame], self.root)
        return callee.compile_function(values)


def scripted_forward(cls):
    """The forward ember.jit compiles for a module class: its _script_forward when it has one (a forward the
    compiler takes, with the same results as the eager one), else forward."""
    return getattr(cls, "_script_forward", None) or cls.forward


def _tensor_factory():
    import ember

    return ember.tensor


def nn_module():
    import ember.nn

    return ember.nn.Module


def _dtype_code(obj) -> int | None:
    import ember

    if isinstance(obj, ember.dtype):
        from ember._C import _jit

        return _jit.dtype_code(obj)
    return None


def _is_final(cls, attr: str) -> bool:
    """Whether the class annotates attr as typing.Final (a constant, as __constants__ lists it)."""
    for klass in cls.__mro__:
        ann = klass.__dict__.get("__annotations__", {}).get(attr)
        if ann is None:
            continue
        return ann is typing.Final or typing.get_origin(ann) is typing.Final or \
            (isinstance(ann, str) and ann.replace("typing.", "").startswith("Final"))
    return False
