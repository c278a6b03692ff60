"""Objects in scripted code: constructing a scripted class (its __init__ inlined on a new object) or a C++
class (ember.classes.NS.Name), reading and assigning attributes (slots), calling methods (a scripted
class's inlined with self bound, a C++ class's through its boxed method), and the magic methods that
len(), indexing, `in` and == call."""
from __future__ import annotations

import ast

from . import _types as T
from ._compiler import ParsedFunction, SValue
from ._errors import NotSupportedError
from ._exprs_builtins import _is_item_call
from ._script_class import BY_NAME, ClassInfo, custom_methods, info_of, object_type_of


class MethodFunction(ParsedFunction):
    """A scripted class's method: `self` has the class's type (a static method has no self)."""

    def __init__(self, fn, info: ClassInfo):
        super().__init__(fn)
        self.info = info
        self.static = isinstance(info.cls.__dict__.get(fn.__name__), staticmethod)

    def param_types(self):
        params = super().param_types()
        if not self.static and params:
            name, _, node = params[0]
            params[0] = (name, self.info.type, node)
        return params


def class_info(t: T.JitType) -> ClassInfo | None:
    """The scripted class of a Class type (None for a C++ class)."""
    return BY_NAME.get(t.name)


_MAGIC_NAMES = {"len": "__len__", "getitem": "__getitem__", "contains": "__contains__", "eq": "__eq__"}


class ObjectExprs:
    # --- construction ---------------------------------------------------------------------------
    def construct_object(self, cls, node: ast.Call) -> SValue:
        """cls(...) for a scripted class: a new object, then its __init__ inlined on it."""
        info = info_of(cls)
        obj = self.emit1("prim::CreateObject", [], info.type, node)
        args, kwargs = self.args_of(node)
        self.inline_method(info, "__init__", obj, args, kwargs, node)
        return obj

    def construct_custom(self, custom, node: ast.Call) -> SValue:
        """ember.classes.NS.Name(...): the C++ class's constructor."""
        t = T.JitType("Class", name=custom.qualified_name)
        methods = custom_methods(t)
        if methods is None or "__init__" not in methods:
            raise self.error(f"the C++ class {custom.namespace}.{custom.__name__} has no constructor", node)
        args, kwargs = self.args_of(node)
        if kwargs:
            raise self.unsupported("keyword arguments to a C++ class's constructor", node)
        args = self.check_custom_args(custom.__name__, methods["__init__"][0], args, node)
        return self.emit1("prim::CustomNew", args, t, node)

    # --- attributes -----------------------------------------------------------------------------
    def object_attr(self, base: SValue, attr: str, node: ast.AST) -> SValue:
        info = class_info(base.type)
        if info is not None and attr not in info.fields and attr in info.constants:  # a class-level constant
            return self.const(info.constants[attr])
        if info is None or attr not in info.fields:
            raise self.error(f"'{base.type}' object has no attribute or method '{attr}'. Did you forget to "
                             "initialize an attribute in __init__()?", node)
        return self.emit1("prim::GetAttr", [base, self.const(info.slot(attr))], info.fields[attr], node)

    def assign_attribute(self, target: ast.Attribute, value: SValue) -> None:
        base = self.expr_or_ref(target.value)
        if not isinstance(base, SValue) or base.type.kind != "Class":
            raise self.unsupported("assignment to an attribute of anything but a scripted class's object", target)
        info = class_info(base.type)
        if info is None:
            raise self.error(f"attributes of the C++ class {base.type} cannot be assigned", target)
        attr = target.attr
        if attr not in info.fields:
            if not info.defining or self.pf.fn is not info.method("__init__"):
                raise self.error(f"'{base.type}' object has no attribute '{attr}': attributes are declared by "
                                 "assigning them in __init__", target)
            if value.id in self.empty_lists:
                value = SValue(value.id, value.type)
            info.fields[attr] = value.type
        want = info.fields[attr]
        if not T.accepts(want, value.type):
            raise self.error(f"the attribute '{attr}' has type {want}, but the value assigned is {value.type}", target)
        self.emit("prim::SetAttr", [base, self.const(info.slot(attr)), value], [], target)

    # --- methods --------------------------------------------------------------------------------
    def object_method(self, base: SValue, name: str, node: ast.Call) -> SValue:
        args, kwargs = self.args_of(node)
        return self.call_object_method(base, name, args, kwargs, node)

    def call_object_method(self, base: SValue, name: str, args: list, kwargs: dict, node) -> SValue:
        info = class_info(base.type)
        if info is not None:
            if info.method(name) is None and name in info.fields and info.fields[name].kind == "Class":
                # self.matcher(x): an attribute holding an object, called (its class's __call__)
                held = self.object_attr(base, name, node)
                return self.call_object_method(held, "__call__", args, kwargs, node)
            if info.method(name) is None:
                raise self.error(f"'{base.type}' object has no attribute or method '{name}'", node)
            return self.inline_method(info, name, base, args, kwargs, node)
        methods = custom_methods(base.type)
        if methods is None:
            raise self.error(f"unknown class {base.type}: import the extension that registers it", node)
        if name not in methods or name.startswith("__") and name not in _MAGIC_NAMES.values():
            raise self.error(f"the C++ class {base.type} has no method '{name}'", node)
        if kwargs:
            raise self.unsupported("keyword arguments to a C++ class's method", node)
        params, ret = methods[name]
        args = self.check_custom_args(name, params, args, node)
        outs = self.emit("prim::CallCustom", [self.const(name), base] + args, [ret], node)
        return outs[0]

    def check_custom_args(self, what: str, params: list[T.JitType], args: list, node) -> list[SValue]:
        if len(args) != len(params):
            raise self.error(f"{what}() expects {len(params)} argument(s), got {len(args)}", node)
        out = []
        for k, (p, a) in enumerate(zip(params, args)):
            if not isinstance(a, SValue) or not T.accepts(p, a.type):
                got = a.type if isinstance(a, SValue) else type(a.obj).__name__
                raise self.error(f"argument {k + 1} of {what}() expects {p}, got {got}", node)
            out.append(self.emit1("prim::unchecked_cast", [a], p, node) if a.type != p else a)
        return out

    def inline_method(self, info: ClassInfo, name: str, obj: SValue, args: list, kwargs: dict, node) -> SValue:
        """The method's body compiled into the current block with self bound to obj (as inline_call does for
        functions; recursion is refused the same way)."""
        fn = info.method(name)
        frame = (fn, None)
        if frame in self.stack:
            raise self.error(f"recursive calls are not supported: {fn.__qualname__} calls itself", node,
                             cls=NotSupportedError)
        pf = MethodFunction(fn, info)
        call_args = list(args) if pf.static else [obj] + list(args)
        try:
            bound = pf.signature.bind(*call_args, **kwargs)
        except TypeError as e:
            raise self.error(f"call of {fn.__qualname__}: {e}", node) from None
        values = []
        for pname, p in pf.signature.parameters.items():
            if pname in bound.arguments:
                values.append(bound.arguments[pname])
            elif isinstance(p.default, (bool, int, float, str)) or p.default is None:
                values.append(self.const(p.default))
            else:
                raise self.error(f"the default of {fn.__qualname__}'s argument '{pname}' is not a constant", node)
        callee = type(self)(self.g, self.block, pf, self.stack + [frame], self.root)
        return callee.compile_function(values)

    def magic(self, base: SValue, which: str, args: list[SValue], node) -> SValue:
        """len(obj), obj[k], k in obj, obj == other: the class's magic method, refused clearly without one."""
        name = _MAGIC_NAMES[which]
        info = class_info(base.type)
        has = info.method(name) is not None if info is not None else name in (custom_methods(base.type) or {})
        if not has:
            raise self.error(f"'{base.type}' object has no method '{name}' (needed by this expression)", node)
        out = self.call_object_method(base, name, args, {}, node)
        if which in ("contains", "eq") and out.type != T.BOOL:
            raise self.error(f"{base.type}.{name} must return bool, it returns {out.type}", node)
        if which == "len" and out.type != T.INT:
            raise self.error(f"{base.type}.__len__ must return int, it returns {out.type}", node)
        return out

    # --- the magic methods' entry points (overriding the container versions for objects) ---------
    def call_builtin(self, name: str, node: ast.Call) -> SValue:
        if name in ("len", "int") and len(node.args) == 1 and not node.keywords and \
                not _is_item_call(node.args[0]):  # int(t.item()): the generic builtin compiles t only
            v = self.expr_or_ref(node.args[0])
            if name == "len" and isinstance(v, SValue) and v.type.kind == "Class":
                return self.magic(v, "len", [], node)
            if name == "int" and isinstance(v, SValue) and v.type == T.STR:
                return self.emit1("prim::StrToInt", [v], T.INT, node)
            # The argument is compiled: the generic builtin reuses it (compiling it again would run its side
            # effects twice, a random draw say).
            self._compiled_once = (node.args[0], v)
        return super().call_builtin(name, node)

    def expr_Subscript(self, node: ast.Subscript, want):
        base = self.expr_or_ref(node.value)
        if isinstance(base, SValue) and base.type.kind == "Class":
            return self.magic(base, "getitem", [self.expr(node.slice)], node)
        self._compiled_once = (node.value, base)  # compiled once only (a call in it may have side effects)
        return super().expr_Subscript(node, want)

    def contains(self, item: SValue, seq: SValue, node) -> SValue:
        if seq.type.kind == "Class":
            return self.magic(seq, "contains", [item], node)
        return super().contains(item, seq, node)

    # --- module attributes holding objects --------------------------------------------------------
    object_type_of = staticmethod(object_type_of)

    # --- isinstance on Union and Any values -------------------------------------------------------
    def isinstance_call(self, node: ast.Call) -> SValue:
        if len(node.args) == 2 and not node.keywords:
            v = self.expr_or_ref(node.args[0])
            if isinstance(v, SValue) and v.type.kind in ("Union", "Any"):
                return self.runtime_isinstance(v, self.isinstance_types(node.args[1]), node)
            self._compiled_once = (node.args[0], v)
        return super().isinstance_call(node)

    def runtime_isinstance(self, v: SValue, wants: list, node) -> SValue:
        """Whether v's run-time value is of one of wants (script types or bare container kinds), asked of the
        value: prim::IsInstance(v, "int|List|__torch__.P")."""
        spelled = "|".join(w if isinstance(w, str) else str(w) for w in wants)
        return self.emit1("prim::IsInstance", [v, self.const(spelled)], T.BOOL, node)

    def isinstance_refinements(self, test: ast.Call) -> tuple[dict, dict]:
        x = test.args[0] if len(test.args) == 2 else None
        v = self.env.get(x.id) if isinstance(x, ast.Name) else None
        if isinstance(v, SValue) and v.type.kind == "Union":
            try:
                wants = self.isinstance_types(test.args[1])
            except Exception:
                return {}, {}
            hit = [m for m in v.type.elems if any(self.type_matches(m, w) or (isinstance(w, T.JitType) and
                                                                                w.kind == m.kind == "Class" and
                                                                                w.name == m.name) for w in wants)]
            miss = [m for m in v.type.elems if m not in hit]
            then = {x.id: T.union_of(hit)} if hit else {}
            return then, ({x.id: T.union_of(miss)} if miss else {})
        if isinstance(v, SValue) and v.type.kind == "Any":
            try:
                wants = self.isinstance_types(test.args[1])
            except Exception:
                return {}, {}
            if len(wants) == 1 and isinstance(wants[0], T.JitType):
                return {x.id: wants[0]}, {}
            return {}, {}
        return super().isinstance_refinements(test)

    # --- ember.tensor(list) -----------------------------------------------------------------------
    def tensor_call(self, node: ast.Call) -> SValue:
        """ember.tensor(data, dtype=None, device=None): data a number or a (nested) list of numbers (prim::tensor,
        then moved when a device is given)."""
        args, kwargs = self.args_of(node)
        dtype = kwargs.pop("dtype", args[1] if len(args) > 1 else None)
        device = kwargs.pop("device", args[2] if len(args) > 2 else None)
        if len(args) not in (1, 2, 3) or kwargs or (len(args) >= 2 and "dtype" in kwargs):
            raise self.unsupported("ember.tensor with arguments other than data, dtype and device", node)
        data = args[0]
        if data.type.kind == "Tuple" and data.type.elems and all(e.is_number for e in data.type.elems):
            # a tuple of numbers (BoxCoder's weights): its items as a list, of one number type
            kind = T.FLOAT if T.FLOAT in data.type.elems else T.INT if T.INT in data.type.elems else T.BOOL
            items = [self.emit1("prim::TupleIndex", [data, self.const(k)], e, node)
                     for k, e in enumerate(data.type.elems)]
            items = [v if v.type == kind else self.emit1("prim::" + kind.kind.capitalize(), [v], kind, node)
                     for v in items]
            data = self.emit1("prim::ListConstruct", items, T.list_of(kind), node)
        leaf = data.type
        while leaf.kind == "List":
            leaf = leaf.elems[0]
        if not leaf.is_number:
            raise self.error(f"ember.tensor: expected a number or a list of numbers, got {data.type}", node)
        if dtype is None:
            dtype = self.const(None)
        elif dtype.type not in (T.INT, T.NONE) and dtype.type.kind != "Optional":
            raise self.error(f"ember.tensor: dtype must be an ember.dtype, got {dtype.type}", node)
        made = self.emit1("prim::tensor", [data, dtype], T.TENSOR, node)
        if device is None or device.type == T.NONE:
            return made
        return self.call_op("_to_copy", [made], {"device": device}, node)
