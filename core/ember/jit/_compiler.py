"""The script compiler's state and shared helpers: the graph under construction, the current block, the
variable environment, emitting nodes and constants, and compiling one function's body (its parameters,
annotations and return). Statements and expressions live in _stmts.py and _exprs.py."""
from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
import typing

from . import _types as T
from ._errors import FrontendError, NotSupportedError, ScriptTypeError, SourceContext
from ._type_comments import hints_from_type_comments


class SValue:
    """A value of the graph under construction, with its static type."""

    __slots__ = ("id", "type")

    def __init__(self, vid: int, typ: T.JitType):
        self.id, self.type = vid, typ

    def __repr__(self) -> str:
        return f"%{self.id}: {self.type}"


class PyRef:
    """A name that resolves to a Python object rather than a value: a module, a function, a class."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


class ModuleRef(PyRef):
    """An nn.Module being scripted (`self`, a submodule): its attributes are read at compile time."""

    __slots__ = ()


class Exit:
    """How a statement list ends: with exit values (a return value, or a loop's continue flag and
    carried values), or by raising."""

    def __init__(self, values: list[SValue] | None):
        self.values = values  # None: always raises

    @property
    def raises(self) -> bool:
        return self.values is None


class FunctionCtx:
    """Exits of a function body: `return v` gives [v]; falling off the end returns None."""

    loop = False

    def __init__(self, compiler: "CompilerBase", return_type: T.JitType | None):
        self.c, self.return_type = compiler, return_type

    def fallthrough(self) -> Exit:
        return Exit([self.c.const(None)])


class ParsedFunction:
    """A Python function's AST, source context, globals and signature."""

    def __init__(self, fn):
        if not inspect.isfunction(fn):
            raise NotSupportedError(f"ember.jit.script can only compile functions here, got {type(fn).__name__}")
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise FrontendError(f"cannot get the source of {fn.__qualname__} to compile it: {e}") from None
        raw = "".join(lines)
        text = textwrap.dedent(raw)
        col = len(lines[0]) - len(lines[0].lstrip()) if text != raw else 0
        tree = ast.parse(text)
        self.fn, self.def_ = fn, tree.body[0]
        if not isinstance(self.def_, ast.FunctionDef):
            raise NotSupportedError(f"{fn.__qualname__} is not a def statement")
        self.ctx = SourceContext(inspect.getsourcefile(fn) or "<unknown>", text.splitlines(), first, col,
                                 fn.__qualname__)
        self.globals = dict(fn.__globals__)
        closure = inspect.getclosurevars(fn)
        self.globals.update(closure.nonlocals)
        self.signature = inspect.signature(fn)
        try:
            self.hints = typing.get_type_hints(fn, localns=getattr(fn, "_ember_localns", None))
        except Exception as e:  # an annotation that does not evaluate
            raise ScriptTypeError(f"cannot evaluate the annotations of {fn.__qualname__}: {e}", self.ctx,
                                  self.def_) from None
        if not self.hints:  # no annotations: TorchScript reads the signature's type comments
            try:
                self.hints = hints_from_type_comments(fn, text, self.globals) or {}
            except ValueError as e:
                raise ScriptTypeError(str(e), self.ctx, self.def_) from None
        self._check_args()

    def _check_args(self) -> None:
        a = self.def_.args
        for bad, what in ((a.vararg, "*args"), (a.kwarg, "**kwargs")):
            if bad is not None:
                raise NotSupportedError(f"{what} is not supported in script functions", self.ctx, bad)

    def param_types(self) -> list[tuple[str, T.JitType, ast.AST]]:
        out = []
        for arg in self.def_.args.posonlyargs + self.def_.args.args + self.def_.args.kwonlyargs:
            ann = self.hints.get(arg.arg)
            t = T.TENSOR if ann is None else T.from_annotation(ann)  # unannotated: Tensor, as TorchScript
            if t is None:
                raise ScriptTypeError(f"unsupported annotation {ann!r} for argument '{arg.arg}'", self.ctx, arg)
            out.append((arg.arg, t, arg))
        return out

    def return_type(self) -> T.JitType | None:
        if "return" not in self.hints:
            return None
        t = T.from_annotation(self.hints["return"])
        if t is None:
            raise ScriptTypeError(f"unsupported return annotation {self.hints['return']!r}", self.ctx,
                                  self.def_.returns)
        return t


class CompilerBase:
    """Holds the graph being built and the state every statement and expression reads."""

    def __init__(self, graph, block: int, parsed: ParsedFunction, stack: list, root: "CompilerBase | None" = None):
        self.g, self.block, self.pf = graph, block, parsed
        self.env: dict[str, SValue] = {}
        self.stack = stack  # (function, module or None) being compiled, outermost first: recursion is refused
        self.fctx: FunctionCtx | None = None
        self.comp_types: dict[int, object] = {}  # a comprehension's list or dict id -> its type so far
        # value id -> the Python value of each constant of the graph (shared by the inlined calls' compilers)
        self.const_values: dict[int, object] = root.const_values if root is not None else {}
        self.empty_lists: set[int] = root.empty_lists if root is not None else set()  # ids of untyped [] literals
        # ids of t.item() results: numbers whose kind is known at run time only (TorchScript's Scalar), which an op
        # takes for a Scalar argument (x + t.item())
        self.item_numbers: set[int] = root.item_numbers if root is not None else set()
        # The compiler of the scripted function or forward itself: module attributes that become graph
        # inputs (tensors, and the bool/int/float attributes that may change between calls) live there.
        self.root = root if root is not None else self
        if root is None:
            self.attr_inputs: list[tuple[object, str]] = []
            self.attr_values: dict[tuple[int, str], SValue] = {}

    # --- errors -----------------------------------------------------------------------------------
    def error(self, msg: str, node: ast.AST | None, cls=ScriptTypeError):
        return cls(msg, self.pf.ctx, node)

    def unsupported(self, what: str, node: ast.AST | None):
        return NotSupportedError(f"{what} is not supported in script functions", self.pf.ctx, node)

    # --- emission ---------------------------------------------------------------------------------
    def emit(self, kind: str, inputs: list[SValue], out_types: list[T.JitType], node: ast.AST | None = None,
             ) -> list[SValue]:
        try:
            _, outs = self.g.append(self.block, kind, [v.id for v in inputs], [str(t) for t in out_types])
        except (TypeError, ValueError, RuntimeError) as e:
            raise self.error(f"cannot emit {kind}: {e}", node) from None
        return [SValue(o, t) for o, t in zip(outs, out_types)]

    def emit1(self, kind: str, inputs: list[SValue], out_type: T.JitType, node: ast.AST | None = None) -> SValue:
        return self.emit(kind, inputs, [out_type], node)[0]

    def const(self, value, typ: T.JitType | None = None) -> SValue:
        if typ is None:
            typ = self.type_of_constant(value)
        v = SValue(self.g.constant(self.block, value, str(typ)), typ)
        self.const_values[v.id] = value
        return v

    @staticmethod
    def type_of_constant(value) -> T.JitType:
        if value is None:
            return T.NONE
        for py, t in ((bool, T.BOOL), (int, T.INT), (float, T.FLOAT), (str, T.STR)):
            if isinstance(value, py):
                return t
        if isinstance(value, tuple):
            return T.tuple_of(CompilerBase.type_of_constant(v) for v in value)
        if isinstance(value, list) and value:
            return T.list_of(CompilerBase.type_of_constant(value[0]))
        if isinstance(value, dict) and value:
            k, v = next(iter(value.items()))
            return T.dict_of(CompilerBase.type_of_constant(k), CompilerBase.type_of_constant(v))
        raise TypeError(f"no script constant of type {type(value).__name__}")

    # --- names ------------------------------------------------------------------------------------
    def lookup(self, name: str, node: ast.AST):
        if name in self.env:
            return self.env[name]
        if name in self.pf.globals:
            obj = self.pf.globals[name]
        elif hasattr(builtins, name):
            obj = getattr(builtins, name)
        else:
            raise self.error(f"undefined value {name}", node)
        if isinstance(obj, (bool, int, float, str)) or obj is None:
            return self.const(obj)  # Python constants and globals are baked in, as TorchScript does
        return self.dtype_or_ref(obj)  # type: ignore[attr-defined]  (ExprCompiler's)

    def as_value(self, x, node: ast.AST) -> SValue:
        if isinstance(x, SValue):
            return x
        raise self.error(f"{getattr(x.obj, '__name__', type(x.obj).__name__)} is not a value here", node)

    # --- blocks -----------------------------------------------------------------------------------
    def in_block(self, block: int, fn, *args):
        saved = self.block
        self.block = block
        try:
            return fn(*args)
        finally:
            self.block = saved

    # --- functions --------------------------------------------------------------------------------
    def compile_function(self, args: list[SValue]) -> SValue:
        """Compiles self.pf's body into the current block with its parameters bound to args; returns
        the return value."""
        params = self.pf.param_types()
        for (name, t, node), v in zip(params, args):
            if isinstance(v, PyRef):  # a method's self; an enum member known when compiling
                self.env[name] = v
                continue
            if t.kind == "List" and v.type.kind == "Tuple" and v.type.elems and \
                    all(T.accepts(t.elems[0], e) for e in v.type.elems):
                # a tuple where a list is declared (x.expand((1, -1)), new_zeros((2, 3))): its items as the list, as
                # TorchScript takes a tuple literal for an int[] argument
                items = [self.emit1("prim::TupleIndex", [v, self.const(k)], e) for k, e in enumerate(v.type.elems)]
                v = self.emit1("prim::ListConstruct", items, t)
            if v.type == T.TENSOR and T.without_none(t) in (T.INT, T.FLOAT):  # TorchScript's IntImplicit/FloatImplicit
                v = self.emit1("prim::IntImplicit" if T.without_none(t) == T.INT else "prim::FloatImplicit", [v],
                               T.without_none(t))
            if t != T.ANY and not T.accepts(t, v.type):
                raise self.error(f"argument '{name}' of {self.pf.fn.__qualname__} expects type {t}, "
                                 f"got {v.type}", node)
            self.env[name] = v
        self.fctx = FunctionCtx(self, self.pf.return_type())
        ex = self.compile_body(  # type: ignore[attr-defined]  (StmtCompiler's)
            self.pf.def_.body)
        if ex.raises:
            return self.const(None)
        ret = ex.values[0]
        want = self.fctx.return_type
        if want == T.ANY:  # an inlined helper whose result's type depends on its arguments
            return ret
        if ret.id in self.item_numbers and want in (T.INT, T.FLOAT, T.BOOL):  # -> float: return t.item()
            ret = self.emit1("prim::" + want.kind.capitalize(), [ret], want)
        if want is not None and not T.accepts(want, ret.type):
            raise self.error(f"{self.pf.fn.__qualname__} is annotated to return {want}, but it returns "
                             f"{ret.type}", self.pf.def_.returns)
        return SValue(ret.id, want) if want is not None else ret
