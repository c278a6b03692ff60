"""Containers and strings in expressions: dict literals, indexing and slicing of lists, tuples, strings,
dicts and tensors (ints, slices with steps, None, Ellipsis, one integer-tensor index), the list, dict and
str methods, `in`, list and dict comprehensions, f-strings and str.format. Each maps to a primitive of
core/csrc/jit/prims_{list,dict,str}.cpp or to op-table ops."""
from __future__ import annotations

import ast

from . import _builtins_indexing, _builtins_language_extra, _python_ops
from . import _types as T
from ._compiler import ModuleRef, SValue

_KEY_KINDS = ("str", "int", "float", "bool", "Tensor")
_STR_METHODS = {  # name: (prim, result type, argument defaults after self; _REQ marks a required one)
    "lower": ("prim::str_lower", T.STR, ()), "upper": ("prim::str_upper", T.STR, ()),
    "strip": ("prim::str_strip", T.STR, (None,)), "lstrip": ("prim::str_lstrip", T.STR, (None,)),
    "rstrip": ("prim::str_rstrip", T.STR, (None,)), "startswith": ("prim::str_startswith", T.BOOL, ("_REQ",)),
    "endswith": ("prim::str_endswith", T.BOOL, ("_REQ",)), "find": ("prim::str_find", T.INT, ("_REQ",)),
    "split": ("prim::str_split", T.list_of(T.STR), (None, -1)), "join": ("prim::str_join", T.STR, ("_REQ",)),
    "replace": ("prim::str_replace", T.STR, ("_REQ", "_REQ", -1)),
}


def _is_ellipsis(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and e.value is Ellipsis


def _is_none(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and e.value is None


class ContainerExprs:
    # --- literals ---------------------------------------------------------------------------------
    def expr_Dict(self, node: ast.Dict, want) -> SValue:
        if any(k is None for k in node.keys):
            raise self.unsupported("** unpacking in a dict literal", node)
        keys = [self.expr(k) for k in node.keys]
        vals = [self.expr(v) for v in node.values]
        if not keys:
            t = want if want is not None and want.kind == "Dict" else T.dict_of(T.STR, T.TENSOR)  # TorchScript's
            return self.emit1("prim::DictConstruct", [], t, node)
        kt, vt = self.common_type(keys, node.keys, "dict keys"), self.common_type(vals, node.values, "dict values")
        if kt.kind not in _KEY_KINDS:
            raise self.error(f"dict keys must be str, int, float, bool or Tensor, got {kt}", node.keys[0])
        if want is not None and want.kind == "Dict" and T.accepts(want, T.dict_of(kt, vt)):
            kt, vt = want.elems
        inputs = [x for kv in zip(keys, vals) for x in kv]
        return self.emit1("prim::DictConstruct", inputs, T.dict_of(kt, vt), node)

    def common_type(self, values: list[SValue], nodes: list[ast.expr], what: str) -> T.JitType:
        t = values[0].type
        for v, n in zip(values[1:], nodes[1:]):
            u = T.unify(t, v.type)
            if u is None:
                raise self.error(f"{what} must all have one type; found {t} and {v.type}", n)
            t = u
        return t

    # --- comprehensions ---------------------------------------------------------------------------
    def expr_ListComp(self, node: ast.ListComp, want) -> SValue:
        return self.comprehension(node, [node.elt], want)

    def expr_GeneratorExp(self, node: ast.GeneratorExp, want) -> SValue:
        return self.comprehension(node, [node.elt], want)  # a list: what join, min, max... take in scripted code

    def expr_DictComp(self, node: ast.DictComp, want) -> SValue:
        return self.comprehension(node, [node.key, node.value], want)

    def comprehension(self, node, parts: list[ast.expr], want) -> SValue:
        """[elt for x in it if c]: an empty list (typed once the element is compiled) filled by a loop;
        the loop variables do not leak, as in Python 3."""
        if len(node.generators) != 1 or node.generators[0].is_async:
            raise self.unsupported("a comprehension with more than one for", node)
        gen = node.generators[0]
        is_dict = len(parts) == 2
        acc = self.emit1("prim::DictConstruct" if is_dict else "prim::ListConstruct", [],
                         T.dict_of(T.STR, T.TENSOR) if is_dict else T.list_of(T.TENSOR), node)
        name = f"$comp{acc.id}"
        self.comp_types[acc.id] = None
        add = ast.Expr(ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "$add", ast.Load()), parts, []))
        body: ast.stmt = add
        for cond in reversed(gen.ifs):
            body = ast.If(cond, [body], [])
        loop = ast.For(gen.target, gen.iter, [body], [])
        for n in ast.walk(loop):
            if not hasattr(n, "lineno"):
                ast.copy_location(n, parts[0])
        before = dict(self.env)
        self.env[name] = acc
        self.stmt_For(loop)
        self.env = {k: v for k, v in self.env.items() if k in before}
        self.env.update({k: v for k, v in before.items() if k not in self.env})
        t = self.comp_types.pop(acc.id)
        if t is None:  # the filter never let an element be compiled in: the annotation or the default
            t = want if want is not None and want.kind == acc.type.kind else acc.type
        self.g.set_value_type(acc.id, str(t))
        return SValue(acc.id, t)

    def comp_add(self, acc: SValue, args: list[SValue], node: ast.AST) -> SValue:
        cur = self.comp_types[acc.id]
        if len(args) == 2:
            t = T.dict_of(args[0].type, args[1].type)
        else:
            t = T.list_of(args[0].type)
        if cur is not None and cur != t:
            raise self.error(f"the comprehension's elements have types {cur} and {t}", node)
        self.comp_types[acc.id] = t
        kind = "prim::DictSetItem" if len(args) == 2 else "prim::ListAppend"
        self.emit(kind, [acc] + args, [], node)
        return self.const(None)

    # --- indexing and slicing ---------------------------------------------------------------------
    def expr_Subscript(self, node: ast.Subscript, want):
        base = self.expr_or_ref(node.value)
        if isinstance(base, ModuleRef):
            return self.module_item(base, node)
        base = self.as_value(base, node.value)
        sl, kind = node.slice, base.type.kind
        if kind == "Tuple":
            return self.tuple_item(base, sl, node)
        if kind == "Dict":
            key = self.expr(sl)
            if not T.accepts(base.type.elems[0], key.type):
                raise self.error(f"a {base.type} cannot be indexed by a {key.type}", sl)
            return self.emit1("prim::DictIndex", [base, key], base.type.elems[1], node)
        if kind in ("List", "str") and isinstance(sl, ast.Slice):
            bounds = self.slice_parts(sl)
            return self.emit1("prim::ListSlice" if kind == "List" else "prim::StrSlice", [base] + bounds, base.type,
                              node)
        if kind == "Tensor":
            return self.tensor_index(base, sl, node)
        idx = self.expr(sl)
        if idx.type not in (T.INT, T.BOOL):
            raise self.error(f"a {base.type} can only be indexed by an int, got {idx.type}", sl)
        if kind == "List":
            return self.emit1("prim::ListIndex", [base, idx], base.type.elems[0], node)
        if kind == "str":
            return self.emit1("prim::StrIndex", [base, idx], T.STR, node)
        raise self.error(f"a value of type {base.type} cannot be indexed", node)

    def module_item(self, ref: ModuleRef, node: ast.Subscript) -> ModuleRef | SValue:
        """self.layers[0] (ModuleList, Sequential) or self.heads["a"] (ModuleDict): by a constant only."""
        sl = node.slice
        if not isinstance(sl, ast.Constant) or not isinstance(sl.value, (int, str)) or isinstance(sl.value, bool):
            raise self.error("a module container can only be indexed by an int or str constant", sl)
        try:
            sub = ref.obj[sl.value]
        except (IndexError, KeyError, TypeError) as e:
            raise self.error(f"cannot index {type(ref.obj).__name__} by {sl.value!r}: {e}", sl) from None
        import ember

        if isinstance(sub, ember.Tensor):  # a ParameterList's or ParameterDict's entry: read at each call
            names = list(ref.obj._parameters)
            name = names[sl.value] if isinstance(sl.value, int) else sl.value
            return self.attr_input(ref.obj, name, T.TENSOR)
        return ModuleRef(sub)

    def tuple_item(self, base: SValue, sl: ast.expr, node: ast.AST) -> SValue:
        n = len(base.type.elems)
        if isinstance(sl, ast.Slice):
            consts = [None if p is None else self.constant_int(p) for p in (sl.lower, sl.upper, sl.step)]
            picked = list(range(n))[slice(*consts)]
            items = [self.emit1("prim::TupleIndex", [base, self.const(k)], base.type.elems[k], node) for k in picked]
            return self.emit1("prim::TupleConstruct", items, T.tuple_of(v.type for v in items), node)
        if n and all(e == base.type.elems[0] for e in base.type.elems) and not isinstance(sl, ast.Constant):
            idx = self.expr(sl)  # a tuple of one type: any int index, checked when run
            if idx.type == T.INT:
                return self.emit1("prim::TupleIndex", [base, idx], base.type.elems[0], node)
        k = self.constant_int(sl)
        if not -n <= k < n:
            raise self.error(f"tuple index {k} out of range for a tuple of {n} values", sl)
        return self.emit1("prim::TupleIndex", [base, self.const(k)], base.type.elems[k], node)

    def constant_int(self, e: ast.expr) -> int:
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return -self.constant_int(e.operand)
        if not (isinstance(e, ast.Constant) and type(e.value) is int):
            raise self.error("a tuple can only be indexed or sliced by int constants", e)
        return e.value

    def slice_parts(self, sl: ast.Slice) -> list[SValue]:
        out = []
        for p in (sl.lower, sl.upper, sl.step):
            v = self.const(None) if p is None else self.expr(p)
            if v.type == T.TENSOR:  # x[t:]: TorchScript's slice takes a 0-dim integral tensor for an int (IntImplicit)
                v = self.emit1("prim::IntImplicit", [v], T.INT, p)
            if v.type not in (T.INT, T.NONE, T.BOOL):
                raise self.error(f"slice indices must be integers or None, got {v.type}", p)
            out.append(v)
        return out

    def tensor_index(self, t: SValue, sl: ast.expr, node: ast.AST, for_write: bool = False) -> SValue:
        """Basic indexing as views (int: select, slice: narrow, None: unsqueeze, ...: the dims between), then
        tensor indices (a mask, an integer tensor, or adjacent integer tensors: _builtins_indexing.py)."""
        items = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        ells = [i for i, e in enumerate(items) if _is_ellipsis(e)]
        if len(ells) > 1:
            raise self.error("an index can only have a single ellipsis ('...')", sl)
        head, tail = (items[:ells[0]], items[ells[0] + 1:]) if ells else (items, [])
        dim, advanced = 0, None
        for e in head:
            if _is_none(e):
                t = self.call_op("unsqueeze", [t, self.const(dim)], {}, e)
                dim += 1
            elif isinstance(e, ast.Slice):
                t = self.slice_tensor(t, dim, e)
                dim += 1
            else:
                v = self.expr(e)
                if v.type in (T.INT, T.BOOL):
                    t = self.call_op("select", [t, self.const(dim), v], {}, e)
                elif v.type == T.TENSOR:
                    if advanced is None:
                        advanced = (dim, [v], e)
                    elif advanced[0] + len(advanced[1]) == dim:  # adjacent tensor indices pick jointly
                        advanced[1].append(v)
                    else:
                        raise self.unsupported("tensor indices separated by other indices", e)
                    dim += 1
                else:
                    raise self.error(f"a Tensor cannot be indexed by a {v.type}", e)
        cur = -1  # the items after an ellipsis address dims from the end
        for e in reversed(tail):
            if _is_none(e):
                t = self.call_op("unsqueeze", [t, self.const(cur)], {}, e)
                cur -= 1
            elif isinstance(e, ast.Slice):
                t = self.slice_tensor(t, cur, e)
                cur -= 1
            else:
                v = self.expr(e)
                if v.type not in (T.INT, T.BOOL):
                    raise self.unsupported(f"a {v.type} index after an ellipsis", e)
                t = self.call_op("select", [t, self.const(cur), v], {}, e)
        if advanced is not None:
            first, idxs, e = advanced
            if for_write:  # the picked elements are a copy: writing them would be lost
                raise self.unsupported("assigning to a tensor indexed by tensors mixed with slices or None", e)
            if len(idxs) == 1:
                trailing = self.const(dim > first + 1 or bool(tail))
                return self.inline_call(_builtins_indexing.index_one, [t, self.const(first), idxs[0], trailing], {},
                                        e)
            packed = self.emit1("prim::ListConstruct", idxs, T.list_of(T.TENSOR), e)
            t = self.inline_call(_builtins_indexing.index_many, [t, self.const(first), packed], {}, e)
        return t

    def slice_tensor(self, t: SValue, dim: int, sl: ast.Slice) -> SValue:
        if sl.lower is None and sl.upper is None and sl.step is None:
            return t
        lo, hi, step = self.slice_parts(sl)
        size = self.emit1("prim::size", [t, self.const(dim)], T.INT, sl)
        start, span = self.emit("prim::slice_bounds", [size, lo, hi, step], [T.INT, T.INT], sl)
        t = self.call_op("narrow", [t, self.const(dim), start, span], {}, sl)
        if sl.step is None or (isinstance(sl.step, ast.Constant) and sl.step.value == 1):
            return t
        # a step: the picked positions 0, step, 2*step... of the narrowed dim (a copy, equal in value)
        picks = self.call_op("arange", [self.const(0), span, step], {}, sl)
        return self.call_op("index_select", [t, self.const(dim), picks], {}, sl)

    # --- methods ----------------------------------------------------------------------------------
    def container_method(self, base: SValue, name: str, args: list[SValue], kwargs: dict, node: ast.Call):
        kind = base.type.kind
        if kind == "List":
            return self.list_method(base, name, args, kwargs, node)
        if kind == "Dict":
            return self.dict_method(base, name, args, kwargs, node)
        if kind == "str":
            return self.str_method(base, name, args, kwargs, node)
        return None

    def list_method(self, base: SValue, name: str, args, kwargs, node) -> SValue:
        elem = base.type.elems[0]
        if name == "sort":
            rev = kwargs.pop("reverse", self.const(False))
            if args or kwargs or rev.type != T.BOOL:
                raise self.error("list.sort() takes only reverse=<bool>", node)
            if elem.kind not in ("int", "float", "bool", "str"):
                raise self.unsupported(f"sorting a {base.type}", node)
            self.emit("prim::ListSort", [base, rev], [], node)
            return self.const(None)
        if kwargs:
            raise self.error(f"list.{name}() takes no keyword arguments", node)
        sig = {"append": ("prim::ListAppend", [elem], None), "extend": ("prim::ListExtend", [base.type], None),
               "insert": ("prim::ListInsert", [T.INT, elem], None), "remove": ("prim::ListRemove", [elem], None),
               "index": ("prim::ListIndexOf", [elem], T.INT), "count": ("prim::ListCount", [elem], T.INT),
               "reverse": ("prim::ListReverse", [], None), "copy": ("prim::ListCopy", [], base.type),
               "clear": ("prim::ListClear", [], None), "pop": ("prim::ListPop", [T.INT], elem)}
        if name not in sig:
            raise self.unsupported(f"the method '{name}' of a {base.type}", node)
        kind, params, out = sig[name]
        if name == "pop" and not args:
            args = [self.const(-1)]
        self.check_args(f"list.{name}", params, args, node)
        if out is None:
            self.emit(kind, [base] + args, [], node)
            return self.const(None)
        return self.emit1(kind, [base] + args, out, node)

    def check_args(self, what: str, params: list[T.JitType], args: list[SValue], node) -> None:
        if len(args) != len(params):
            raise self.error(f"{what}() takes {len(params)} arguments, got {len(args)}", node)
        for p, a in zip(params, args):
            if not T.accepts(p, a.type):
                raise self.error(f"{what}() expects a {p}, got a {a.type}", node)

    def dict_method(self, base: SValue, name: str, args, kwargs, node) -> SValue:
        kt, vt = base.type.elems
        if kwargs:
            raise self.error(f"dict.{name}() takes no keyword arguments", node)
        simple = {"keys": ("prim::DictKeys", T.list_of(kt)), "values": ("prim::DictValues", T.list_of(vt)),
                  "items": ("prim::DictItems", T.list_of(T.tuple_of([kt, vt]))), "copy": ("prim::DictCopy", base.type)}
        if name in simple and not args:
            return self.emit1(simple[name][0], [base], simple[name][1], node)
        if name == "clear" and not args:
            self.emit("prim::DictClear", [base], [], node)
            return self.const(None)
        if name == "update":
            self.check_args("dict.update", [base.type], args, node)
            self.emit("prim::DictUpdate", [base] + args, [], node)
            return self.const(None)
        if name == "setdefault" and len(args) == 2:
            self.check_args("dict.setdefault", [kt, vt], args, node)
            return self.inline_call(_builtins_language_extra.dict_setdefault, [base] + args, {}, node)
        if name in ("get", "pop") and 1 <= len(args) <= 2:
            self.check_args(f"dict.{name}", [kt], args[:1], node)
            if name == "pop" and len(args) == 1:
                return self.emit1("prim::DictPop", [base] + args, vt, node)
            dflt = args[1] if len(args) == 2 else self.const(None)
            out = T.unify(vt, dflt.type)
            if out is None:
                raise self.error(f"dict.{name}()'s default has type {dflt.type}, the values {vt}", node)
            kind = "prim::DictGet" if name == "get" else "prim::DictPopDefault"
            return self.emit1(kind, [base, args[0], dflt], out, node)
        raise self.unsupported(f"the method '{name}' of a {base.type} with these arguments", node)

    def str_method(self, base: SValue, name: str, args, kwargs, node) -> SValue:
        if name == "format":
            if kwargs:
                raise self.unsupported("keyword arguments to str.format", node)
            return self.format_values(base, args, node)
        if name in _builtins_language_extra.STR_METHODS:
            return self.inline_call(_builtins_language_extra.STR_METHODS[name], [base] + args, kwargs, node)
        if name not in _STR_METHODS:
            raise self.unsupported(f"the method '{name}' of a str", node)
        kind, out, defaults = _STR_METHODS[name]
        if kwargs or len(args) > len(defaults):
            raise self.error(f"str.{name}() takes at most {len(defaults)} positional arguments", node)
        for d in defaults[len(args):]:
            if d == "_REQ":
                raise self.error(f"str.{name}() is missing an argument", node)
            args.append(self.const(d, T.optional_of(T.STR)) if d is None else self.const(d))
        for a in args:
            if a.type not in (T.STR, T.INT, T.NONE, T.optional_of(T.STR), T.list_of(T.STR)):
                raise self.error(f"str.{name}() does not take a {a.type}", node)
        if name == "join":
            return self.emit1(kind, [base] + args, out, node)
        return self.emit1(kind, [base] + args, out, node)

    # --- strings ----------------------------------------------------------------------------------
    def percent_format(self, fmt: SValue, values: SValue, node) -> SValue | None:
        """"%d of %s" % (n, s) with a constant format string: str.format of the rewritten format; None otherwise."""
        text = self.const_values.get(fmt.id)
        if not isinstance(text, str):
            return None
        try:
            converted, kinds = _builtins_language_extra.percent_to_format(text)
        except ValueError as e:
            raise self.error(str(e), node) from None
        except NotImplementedError as e:
            raise self.unsupported(str(e).replace(" is not supported in script functions", ""), node) from None
        items = self.tuple_items(values, node) if values.type.kind == "Tuple" and values.type.named is None else \
            [values]
        if len(items) != len(kinds):
            raise self.error("Too many arguments for format string" if len(items) > len(kinds) else
                             "Too few arguments for format string", node)
        items = [self.emit1("prim::Int", [v], T.INT, node) if kind in "di" and v.type == T.FLOAT else v
                 for kind, v in zip(kinds, items)]  # %d of a float prints its integer part
        return self.format_values(self.const(converted), items, node)

    def format_values(self, fmt: SValue, args: list[SValue], node) -> SValue:
        """fmt.format(*args): in the interpreter, or, when a Tensor is among them, by Python's str.format
        (tensors have no text in the C++ core)."""
        if any(self.holds_tensor(a.type) for a in args):
            return self.python_call(_python_ops._format, "str.format", [fmt] + args, T.STR, node)
        return self.emit1("prim::format", [fmt] + args, T.STR, node)

    def holds_tensor(self, t: T.JitType) -> bool:
        return t == T.TENSOR or any(self.holds_tensor(e) for e in t.elems)

    def python_call(self, fn, name: str, args: list[SValue], out: T.JitType, node) -> SValue:
        vid = self.g.append_python_op(self.block, fn, name, [a.id for a in args], str(out))
        return SValue(vid, out)

    def expr_JoinedStr(self, node: ast.JoinedStr, want) -> SValue:
        fmt, args = "", []
        for part in node.values:
            if isinstance(part, ast.Constant):
                fmt += part.value.replace("{", "{{").replace("}", "}}")
                continue
            spec = ""
            if part.format_spec is not None:
                if not all(isinstance(p, ast.Constant) for p in part.format_spec.values):
                    raise self.unsupported("a computed format spec", part.format_spec)
                spec = ":" + "".join(p.value for p in part.format_spec.values)
            conv = {-1: "", 114: "!r", 115: "!s"}.get(part.conversion)
            if conv is None:
                raise self.unsupported("the !a conversion", part)
            fmt += "{" + conv + spec + "}"
            args.append(self.expr(part.value))
        return self.format_values(self.const(fmt), args, node)

    def contains(self, item: SValue, seq: SValue, node) -> SValue:
        """`item in seq` for lists, dicts (their keys) and strings."""
        kind = seq.type.kind
        if kind == "List" and T.unify(seq.type.elems[0], item.type) is not None:
            return self.emit1("prim::ListContains", [seq, item], T.BOOL, node)
        if kind == "Dict" and T.accepts(seq.type.elems[0], item.type):
            return self.emit1("prim::DictContains", [seq, item], T.BOOL, node)
        if kind == "str" and item.type == T.STR:
            return self.emit1("prim::StrContains", [item, seq], T.BOOL, node)
        if kind == "Tuple":  # x in (a, b): x == a or x == b, unrolled over the tuple's fields
            hits = self.const(0)  # the number of equal fields
            for k, t in enumerate(seq.type.elems):
                if T.unify(t, item.type) is None and not (t.is_number and item.type.is_number):
                    continue
                field = self.emit1("prim::TupleIndex", [seq, self.const(k)], t, node)
                eq = self.emit1("prim::eq", [item, field], T.BOOL, node)
                hits = self.emit1("prim::add", [hits, eq], T.INT, node)
            return self.emit1("prim::ne", [hits, self.const(0)], T.BOOL, node)
        raise self.error(f"cannot test whether a {item.type} is in a {seq.type}", node)
