"""Statements: assignment (with tuple unpacking and annotations), augmented assignment, if/elif/else
(with `is None` refinement), for over ranges, lists and tensors, while, break/continue, return anywhere
outside loops, raise and assert.

Early exits are compiled by continuation: an `if` one of whose branches returns (or breaks/continues)
takes the statements after it into both branches, so every path ends in an exit and the If node's
outputs carry the exit values (the return value; or a loop's continue flag and carried variables)."""
from __future__ import annotations

import ast
import builtins

from . import _types as T
from . import _builtins_indexing
from ._compiler import Exit, ModuleRef, PyRef, SValue
from ._exprs import ExprCompiler

_INT64_MAX = 2**63 - 1
_INPLACE = {ast.Add: "add_", ast.Sub: "sub_", ast.Mult: "mul_", ast.Div: "div_"}


def _assigned_names(stmts: list[ast.stmt]) -> list[str]:
    names: list[str] = []
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in names:
                names.append(n.id)
    return names


_RET_FLAG, _RET_VAL = "$returned", "$return_value"  # a loop with a return inside carries these


def _returns_inside(s: ast.stmt) -> bool:
    return isinstance(s, (ast.For, ast.While)) and any(isinstance(n, ast.Return) for n in ast.walk(s))


def _never_ends(loop: ast.stmt) -> bool:
    """`while True:` with no break of its own."""
    if not (isinstance(loop, ast.While) and isinstance(loop.test, ast.Constant) and loop.test.value is True):
        return False

    def breaks(stmts) -> bool:
        for s in stmts:
            if isinstance(s, ast.Break):
                return True
            if isinstance(s, ast.If) and (breaks(s.body) or breaks(s.orelse)):
                return True
            if isinstance(s, ast.With) and breaks(s.body):
                return True
        return False

    return not breaks(loop.body)


def _refined_where_reassigned(branches, refined: list, before: dict) -> None:
    """`if x is None: x = 5`: where the other branch rebinds x, the branch that only refined x gives the If its
    refined value (int, not Optional[int]), so x is an int after the If, as in TorchScript."""
    for (_, _, env), kept in zip(branches, refined):
        for name, cast in kept.items():
            if any(other is not env and other.get(name) is not before.get(name) for _, _, other in branches):
                env[name] = cast


def _is_module_dict(m) -> bool:
    import ember.nn

    return isinstance(m, (ember.nn.ModuleDict, ember.nn.ParameterDict))


def _is_parameter_list(m) -> bool:
    import ember.nn

    return isinstance(m, ember.nn.ParameterList)


def _has_exit(stmts: list[ast.stmt], in_loop: bool, raises: bool = False) -> bool:
    """Whether a return (or, in a loop body, a break/continue of this loop; with raises, a raise) occurs in
    stmts."""
    for s in stmts:
        if isinstance(s, ast.Return) or (in_loop and isinstance(s, (ast.Break, ast.Continue))) or \
                (raises and isinstance(s, ast.Raise)):
            return True
        if isinstance(s, ast.If) and (_has_exit(s.body, in_loop, raises) or _has_exit(s.orelse, in_loop, raises)):
            return True
        if isinstance(s, (ast.For, ast.While)) and _has_exit(s.body, False):
            return True
    return False


class LoopCtx:
    """Exits of a loop body: [continue flag] + the carried variables' values at the exit."""

    loop = True

    def __init__(self, compiler: "StmtCompiler", carried: list[str], end_cond):
        self.c, self.carried, self.end_cond = compiler, carried, end_cond

    def exit(self, flag: SValue) -> Exit:
        return Exit([flag] + [self.c.env[n] for n in self.carried])

    def fallthrough(self) -> Exit:
        return self.exit(self.end_cond())


class StmtCompiler(ExprCompiler):
    ctxs: list

    def compile_body(self, stmts: list[ast.stmt]) -> Exit:
        """Statements that must end in an exit: falling off the end exits as the innermost context says."""
        ex = self.compile_stmts(stmts)
        return ex if ex is not None else self.ctx.fallthrough()

    @property
    def ctx(self):
        return self.ctxs[-1] if getattr(self, "ctxs", None) else self.fctx

    def compile_stmts(self, stmts: list[ast.stmt]) -> Exit | None:
        for i, s in enumerate(stmts):
            # an if that may leave (return, break, continue, raise) takes the rest into its branches: the rest
            # sees the refinements of the branch it follows (`if x is None: raise ...`)
            if isinstance(s, ast.If) and _has_exit([s], self.ctx.loop, raises=True):
                return self.compile_if(s, stmts[i + 1:], continuation=True)
            if _returns_inside(s):
                return self.loop_with_return(s, stmts[i + 1:])
            ex = self.compile_stmt(s)
            if ex is not None:
                return ex
        return None

    def compile_stmt(self, s: ast.stmt) -> Exit | None:
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            raise self.unsupported(f"the {type(s).__name__} statement", s)
        return method(s)

    # --- simple statements ------------------------------------------------------------------------
    def stmt_Expr(self, s: ast.Expr) -> None:
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return None  # a docstring
        self.expr(s.value)
        return None

    def stmt_Pass(self, s: ast.Pass) -> None:
        return None

    def stmt_With(self, s: ast.With) -> None:
        """`with record_function(name):` (ember.profiler's or ember.autograd.profiler's): the body as a
        range on the profile's timeline. No other context manager is scriptable."""
        from ember.autograd.profiler import record_function as legacy
        from ember.profiler import record_function
        item = s.items[0]
        call = item.context_expr
        target = self.expr_or_ref(call.func) if isinstance(call, ast.Call) else None
        if (len(s.items) != 1 or item.optional_vars is not None or getattr(target, "obj", None) not in
                (record_function, legacy) or len(call.args) != 1 or call.keywords):
            raise self.unsupported("a with statement other than `with record_function(name):`", s)
        name = self.expr(call.args[0])
        if name.type != T.STR:
            raise self.error(f"record_function expects a str name, got {name.type}", call.args[0])
        handle = self.emit1("prim::record_function_enter", [name], T.INT, s)
        if self.compile_stmts(s.body) is not None:
            raise self.unsupported("return, break or continue inside `with record_function(...)`", s)
        self.emit("prim::record_function_exit", [handle], [], s)
        return None

    def stmt_Return(self, s: ast.Return) -> Exit:
        tolist = isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) and \
            s.value.func.attr == "tolist"  # return t.tolist(): typed by the return annotation, as TorchScript's
        want = self.fctx.return_type if tolist and self.fctx.return_type not in (None, T.ANY) else None
        value = self.expr(s.value, want) if s.value is not None else self.const(None)
        if not self.ctx.loop:
            return Exit([value])
        # in a loop: remember the value, mark the function as returned and leave the loop (loop_with_return)
        want = self.env[_RET_VAL].type
        if not T.accepts(want, value.type):
            raise self.error(f"the function is annotated to return {want}, but this returns {value.type}", s)
        self.env[_RET_VAL] = SValue(value.id, want)
        self.env[_RET_FLAG] = self.const(True)
        return self.ctx.exit(self.const(False))

    def loop_with_return(self, loop: ast.stmt, rest: list[ast.stmt]) -> Exit | None:
        """A loop with a return inside: the loop carries whether it returned and the value (TorchScript's
        transform); after it, `if returned: return value`, else the statements that follow."""
        if _RET_FLAG not in self.env:
            want = self.fctx.return_type
            if want is None:
                raise self.unsupported("return inside a loop of a function without a return annotation", loop)
            self.env[_RET_FLAG] = self.const(False)
            self.env[_RET_VAL] = self.emit1("prim::Uninitialized", [], want, loop)
        ex = self.compile_stmt(loop)
        if ex is not None:
            return ex
        ret = ast.Return(ast.Name(_RET_VAL, ast.Load()))
        after = ast.If(ast.Name(_RET_FLAG, ast.Load()), [ret], [])
        for n in ast.walk(after):
            ast.copy_location(n, loop)
        if _never_ends(loop):  # `while True:` without a break leaves only by its return
            return self.compile_stmts([ret])
        return self.compile_if(after, rest, continuation=True)

    def stmt_Break(self, s: ast.Break) -> Exit:
        if not self.ctx.loop:
            raise self.error("'break' outside loop", s)
        return self.ctx.exit(self.const(False))

    def stmt_Continue(self, s: ast.Continue) -> Exit:
        if not self.ctx.loop:
            raise self.error("'continue' not properly in loop", s)
        return self.ctx.exit(self.const(True))

    def stmt_Assign(self, s: ast.Assign) -> None:
        if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            ref = self.expr_or_ref(s.value)
            if isinstance(ref, PyRef):  # fn = type(self)._fn: a name for a function or module, not a value
                self.env[s.targets[0].id] = ref
                return None
            value = self.as_value(ref, s.value)
            self.assign(s.targets[0], value)
            return None
        value = self.expr(s.value)
        for target in s.targets:
            self.assign(target, value)
        return None

    def stmt_AnnAssign(self, s: ast.AnnAssign) -> None:
        want = self.annotation(s.annotation)
        if s.value is None:
            raise self.unsupported("a declaration without a value", s)
        value = self.expr(s.value, want)
        if not T.accepts(want, value.type):
            raise self.error(f"variable '{ast.unparse(s.target)}' is annotated as {want}, but the value is "
                             f"{value.type}", s.value)
        self.assign(s.target, SValue(value.id, want))
        return None

    def stmt_AugAssign(self, s: ast.AugAssign) -> None:
        if isinstance(s.target, ast.Subscript):  # d[k] += v: read, combine, write back
            load = ast.copy_location(ast.Subscript(s.target.value, s.target.slice, ast.Load()), s.target)
            cur = self.expr(load)
            if cur.type == T.TENSOR and type(s.op) in _INPLACE:
                self.call_op(_INPLACE[type(s.op)], [cur, self.expr(s.value)], {}, s)
                return None
            self.assign_subscript(s.target, self.binop(s.op, cur, self.expr(s.value), s))
            return None
        if isinstance(s.target, ast.Attribute):  # obj.x += v: read, combine, write back
            cur = self.expr(ast.copy_location(ast.Attribute(s.target.value, s.target.attr, ast.Load()), s.target))
            self.assign_attribute(s.target, self.binop(s.op, cur, self.expr(s.value), s))
            return None
        if not isinstance(s.target, ast.Name):
            raise self.unsupported("augmented assignment to anything but a variable", s.target)
        cur = self.lookup(s.target.id, s.target)
        rhs = self.expr(s.value)
        if isinstance(cur, SValue) and cur.type == T.TENSOR and type(s.op) in _INPLACE:
            self.call_op(_INPLACE[type(s.op)], [cur, rhs], {}, s)  # in place, as eager `x += y` is
            return None
        self.env[s.target.id] = self.binop(s.op, self.as_value(cur, s.target), rhs, s)
        return None

    def assign(self, target: ast.expr, value: SValue) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
            self.g.set_name(value.id, target.id)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            n = len(target.elts)
            if value.type.kind == "Tuple":
                if len(value.type.elems) != n:
                    raise self.error(f"cannot unpack a tuple of {len(value.type.elems)} values into {n}", target)
                parts = self.emit("prim::TupleUnpack", [value], list(value.type.elems), target)
            elif value.type.kind == "List":
                parts = self.emit("prim::ListUnpack", [value], [value.type.elems[0]] * n, target)
            else:
                raise self.error(f"cannot unpack a value of type {value.type}", target)
            for t, v in zip(target.elts, parts):
                self.assign(t, v)
            return
        if isinstance(target, ast.Subscript):
            return self.assign_subscript(target, value)
        if isinstance(target, ast.Attribute):
            return self.assign_attribute(target, value)
        raise self.unsupported(f"assignment to {type(target).__name__}", target)

    def assign_subscript(self, target: ast.Subscript, value: SValue) -> None:
        """l[i] = v, d[k] = v, and t[index] = v on a tensor (written through the index's view)."""
        base = self.expr(target.value)
        kind = base.type.kind
        if kind == "List" and not isinstance(target.slice, ast.Slice):
            idx = self.expr(target.slice)
            if idx.type != T.INT or not T.accepts(base.type.elems[0], value.type):
                raise self.error(f"cannot assign a {value.type} to an item of a {base.type} at a {idx.type}", target)
            self.emit("prim::ListSetItem", [base, idx, value], [], target)
            return
        if kind == "Dict":
            key = self.expr(target.slice)
            if not T.accepts(base.type.elems[0], key.type) or not T.accepts(base.type.elems[1], value.type):
                raise self.error(f"cannot set a {base.type} item from a {key.type} key and a {value.type} value",
                                 target)
            self.emit("prim::DictSetItem", [base, key, value], [], target)
            return
        if kind == "Tensor":
            if self.assign_tensor_items(base, target, value):
                return
            view = self.tensor_index(base, target.slice, target, for_write=True)
            if value.type == T.TENSOR:
                self.call_op("copy_", [view, value], {}, target)
            elif value.type.is_number:
                self.call_op("fill_", [view, value], {}, target)
            else:
                raise self.error(f"cannot assign a {value.type} into a Tensor", target)
            return
        raise self.unsupported(f"item assignment on a {base.type}", target)

    def assign_tensor_items(self, base: SValue, target: ast.Subscript, value: SValue) -> bool:
        """t[i, j] = v and t[mask] = v, t[idx] = v, t[i, rows, cols] = v: ints then tensors (no slices, None or
        ...), written in place by select views and index_put_ as eager assignment does. False (nothing
        compiled) for an index with slices, None or an ellipsis: the view path handles those."""
        items = list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]
        if any(isinstance(e, ast.Slice) or (isinstance(e, ast.Constant) and e.value in (None, Ellipsis))
               for e in items):
            return False
        vals = [self.expr(e) for e in items]
        view, k = base, 0
        while k < len(vals) and vals[k].type in (T.INT, T.BOOL):
            view = self.call_op("select", [view, self.const(0), vals[k]], {}, items[k])
            k += 1
        rest = vals[k:]
        if any(v.type != T.TENSOR for v in rest):
            raise self.unsupported("an int index after a tensor index in an assignment", target)
        if value.type.is_number:
            value = self.call_op("scalar_tensor", [value], {}, target)
        elif value.type != T.TENSOR:
            raise self.error(f"cannot assign a {value.type} into a Tensor", target)
        if not rest:
            self.call_op("copy_", [view, value], {}, target)
            return True
        packed = self.emit1("prim::ListConstruct", rest, T.list_of(T.TENSOR), target)
        self.inline_call(_builtins_indexing.index_put, [view, packed, value], {}, target)
        return True

    # --- raise and assert -------------------------------------------------------------------------
    def stmt_Raise(self, s: ast.Raise) -> Exit:
        exc = s.exc
        if exc is None:
            raise self.unsupported("a bare raise", s)
        call_args: list[ast.expr] = []
        if isinstance(exc, ast.Call):
            call_args, exc = exc.args, exc.func
        cls = self.lookup(exc.id, exc) if isinstance(exc, ast.Name) else None
        if cls is None or isinstance(cls, SValue) or not (isinstance(cls.obj, type) and
                                                        issubclass(cls.obj, BaseException)):
            raise self.unsupported("raising anything but a builtin exception class", s.exc)
        if getattr(builtins, cls.obj.__name__, None) is not cls.obj:
            raise self.unsupported(f"raising {cls.obj.__name__} (only builtin exception classes)", s.exc)
        if len(call_args) > 1:
            raise self.unsupported("an exception with more than one argument", s.exc)
        msg = self.expr(call_args[0]) if call_args else self.const("")
        if msg.type != T.STR:
            raise self.error(f"an exception's message must be a str, got {msg.type}", call_args[0])
        self.emit("prim::RaiseException", [msg, self.const(cls.obj.__name__)], [], s)
        return Exit(None)

    def stmt_Assert(self, s: ast.Assert) -> None:
        cond = self.condition(s.test)
        failed = self.emit1("prim::not", [cond], T.BOOL, s)
        nid, _ = self.g.append(self.block, "prim::If", [failed.id], [])
        then_b, else_b = self.g.add_block(nid), self.g.add_block(nid)

        def fail():
            msg = self.expr(s.msg) if s.msg is not None else self.const("")
            self.emit("prim::RaiseException", [msg, self.const("AssertionError")], [], s)

        self.in_block(then_b, fail)
        self.g.set_returns(then_b, [])
        self.g.set_returns(else_b, [])
        return None

    # --- if ---------------------------------------------------------------------------------------
    def stmt_If(self, s: ast.If) -> Exit | None:
        return self.compile_if(s, [], continuation=False)

    def compile_if(self, s: ast.If, rest: list[ast.stmt], continuation: bool) -> Exit | None:
        cond = self.condition(s.test)
        if cond.id in self.const_values:
            # known when compiling (isinstance, `is None`, a module constant): only the taken branch is compiled
            # (the other may not type-check for these argument types), as TorchScript does for its static tests
            taken = s.body if self.const_values[cond.id] else s.orelse
            return self.compile_body(taken + rest) if continuation else self.compile_stmts(taken)
        refine_then, refine_else = self.refinements(s.test)
        nid, _ = self.g.append(self.block, "prim::If", [cond.id], [])
        before = dict(self.env)
        branches, refined = [], []
        for stmts, refine in ((s.body + rest, refine_then), (s.orelse + rest, refine_else)):
            blk = self.g.add_block(nid)
            self.env = dict(before)
            kept: dict = {}

            def run(stmts=stmts, refine=refine, kept=kept):
                casts = {}
                for name, t in refine.items():
                    casts[name] = self.env[name] = self.emit1("prim::unchecked_cast", [self.env[name]], t)
                out = self.compile_body(stmts) if continuation else self.compile_stmts(stmts)
                for name, cast in casts.items():  # a refinement ends with its branch (unless reassigned there)
                    if self.env.get(name) is cast:
                        self.env[name] = before[name]
                        kept[name] = cast
                return out

            ex = self.in_block(blk, run)
            branches.append((blk, ex, self.env))
            refined.append(kept)
        self.env = before
        if continuation:
            return self.join_exits(nid, s, branches)
        _refined_where_reassigned(branches, refined, before)
        return self.join_envs(nid, s, branches, before)

    def join_exits(self, nid: int, s: ast.If, branches) -> Exit:
        live = [ex for _, ex, _ in branches if not ex.raises]
        if not live:
            for blk, _, _ in branches:
                self.g.set_returns(blk, [])
            return Exit(None)
        types = []
        for k in range(len(live[0].values)):
            t = live[0].values[k].type
            for ex in live[1:]:
                u = T.unify(t, ex.values[k].type)
                declared = self.fctx.return_type if not self.ctx.loop else None
                if u is None and declared is not None and declared.kind in ("Any", "Union") and \
                        T.accepts(declared, t) and T.accepts(declared, ex.values[k].type):
                    u = declared  # returns of different types, each an Any or a member of the declared Union
                if u is None:
                    what = "return value" if not self.ctx.loop else "a variable carried by the loop"
                    raise self.error(f"the branches give {what} different types: {t} and {ex.values[k].type}", s)
                t = u
            types.append(t)
        for blk, ex, _ in branches:
            self.g.set_returns(blk, [v.id for v in ex.values] if not ex.raises else self.uninitialized(blk, types))
        return Exit([SValue(self.g.add_output(nid, str(t)), t) for t in types])

    def uninitialized(self, blk: int, types: list[T.JitType]) -> list[int]:
        return [self.in_block(blk, self.emit1, "prim::Uninitialized", [], t).id for t in types]

    def join_envs(self, nid: int, s: ast.If, branches, before: dict) -> None:
        """Variables (re)bound by a branch that falls through become the If's outputs."""
        (tb, tex, tenv), (eb, eex, eenv) = branches
        if tex is not None and eex is not None:  # both raise
            self.g.set_returns(tb, [])
            self.g.set_returns(eb, [])
            return Exit(None)
        live = [env for ex, env in ((tex, tenv), (eex, eenv)) if ex is None]
        names = [n for n in live[0] if all(n in env for env in live) and
                 any(env[n] is not before.get(n) for env in live)]
        names.sort()
        types = []
        for n in names:
            t = live[0][n].type
            for env in live[1:]:
                u = T.unify(t, env[n].type)
                if u is None:
                    raise self.error(f"variable '{n}' has type {t} in one branch and {env[n].type} in the other",
                                     s)
                t = u
            types.append(t)
        for blk, ex, env in branches:
            ids = [env[n].id for n in names] if ex is None else self.uninitialized(blk, types)
            self.g.set_returns(blk, ids)
        self.env = dict(before)
        for n, t in zip(names, types):
            self.env[n] = SValue(self.g.add_output(nid, str(t)), t)
            self.g.set_name(self.env[n].id, n)
        return None

    # --- loops ------------------------------------------------------------------------------------
    def stmt_For(self, s: ast.For) -> None:
        if s.orelse:
            raise self.unsupported("for ... else", s)
        it = self.iteration(s.iter)
        if it[0] == "modules":
            return self.unrolled_modules(s, it[1])
        if it[0] == "unroll":
            return self.unrolled_tuple(s, it[1])
        _, trips, item = it
        self.compile_loop(s, trips, self.const(True), lambda i: self.assign_item(s.target, item(i)),
                          lambda: self.const(True))
        return None

    def assign_item(self, target: ast.expr, item) -> None:
        """An iteration's item: a value, or the parts of a tuple zip/enumerate make (bound one by one when
        the target unpacks them)."""
        if isinstance(item, list):
            if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(item):
                for t, v in zip(target.elts, item):
                    self.assign_item(t, v)
                return
            parts = [self.tuple_value(v) for v in item]
            item = self.emit1("prim::TupleConstruct", parts, T.tuple_of(v.type for v in parts), target)
        self.assign(target, item)

    def tuple_value(self, item) -> SValue:
        if not isinstance(item, list):
            return item
        parts = [self.tuple_value(v) for v in item]
        return self.emit1("prim::TupleConstruct", parts, T.tuple_of(v.type for v in parts))

    def iteration(self, it: ast.expr):
        """How `for x in it` runs: ("loop", trip count, item(i)); ("unroll", values) for a tuple;
        ("modules", ref or items) for a module container."""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args and \
                it.func.attr in ("keys", "values", "items"):
            owner = self.expr_or_ref(it.func.value)
            if isinstance(owner, ModuleRef) and _is_module_dict(owner.obj):
                d = owner.obj
                make = {"keys": lambda k: self.const(k), "values": lambda k: ModuleRef(d[k]),
                        "items": lambda k: (self.const(k), ModuleRef(d[k]))}[it.func.attr]
                return ("modules", [make(k) for k in d.keys()])
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("range", "zip", "enumerate") \
                and it.func.id not in self.env:
            return getattr(self, "iterate_" + it.func.id)(it)
        seq = self.expr_or_ref(it)
        if isinstance(seq, ModuleRef):
            return ("modules", seq)
        seq = self.as_value(seq, it)
        kind = seq.type.kind
        if kind == "Tuple":
            return ("unroll", [self.emit1("prim::TupleIndex", [seq, self.const(k)], t, it)
                               for k, t in enumerate(seq.type.elems)])
        if kind == "Dict":  # its keys, as they are when the loop starts
            seq = self.emit1("prim::DictKeys", [seq], T.list_of(seq.type.elems[0]), it)
            kind = "List"
        if kind == "List":
            trips = self.emit1("prim::len", [seq], T.INT, it)
            return ("loop", trips, lambda i: self.emit1("prim::ListIndex", [seq, i], seq.type.elems[0]))
        if kind == "str":
            trips = self.emit1("prim::StrLen", [seq], T.INT, it)
            return ("loop", trips, lambda i: self.emit1("prim::StrIndex", [seq, i], T.STR))
        if seq.type == T.TENSOR:
            trips = self.emit1("prim::size", [seq, self.const(0)], T.INT, it)
            return ("loop", trips, lambda i: self.call_op("select", [seq, self.const(0), i], {}, it))
        raise self.unsupported(f"iterating over a value of type {seq.type}", it)

    def iterate_range(self, it: ast.Call):
        args = [self.expr(a) for a in it.args]
        wrong = next((k for k, a in enumerate(args) if a.type not in (T.INT, T.BOOL)), None)
        if wrong is not None and 1 <= len(args) <= 3:  # PyTorch's message (a Tensor is not converted here)
            raise self.error(f"all inputs of range must be ints, found {args[wrong].type} in argument {wrong}", it)
        if not 1 <= len(args) <= 3 or it.keywords:
            raise self.error("range() takes one to three int arguments", it)
        start, stop, step = ([self.const(0), args[0], self.const(1)] if len(args) == 1 else
                             args + [self.const(1)] if len(args) == 2 else args)
        trips = self.emit1("prim::range_len", [start, stop, step], T.INT, it)
        return ("loop", trips,
                lambda i: self.emit1("prim::add", [start, self.emit1("prim::mul", [i, step], T.INT)], T.INT))

    def iterate_zip(self, it: ast.Call):
        if it.keywords or not it.args:
            raise self.error("zip() takes one or more iterables", it)
        parts = [self.iteration(a) for a in it.args]
        if any(p[0] != "loop" for p in parts):
            raise self.unsupported("zip() over tuples or modules", it)
        trips = parts[0][1]
        for p in parts[1:]:
            trips = self.emit1("prim::min", [trips, p[1]], T.INT, it)
        return ("loop", trips, lambda i: [p[2](i) for p in parts])

    def iterate_enumerate(self, it: ast.Call):
        start = self.const(0)
        if len(it.args) == 2 or it.keywords:
            start = self.expr(it.args[1] if len(it.args) == 2 else it.keywords[0].value)
        if not 1 <= len(it.args) <= 2 or start.type != T.INT or any(k.arg != "start" for k in it.keywords):
            raise self.error("enumerate() takes an iterable and an int start", it)
        inner = self.iteration(it.args[0])
        if inner[0] == "modules" and start.id in self.const_values and not isinstance(inner[1], list) and \
                not _is_parameter_list(inner[1].obj) and not _is_module_dict(inner[1].obj):
            # enumerate(self.blocks): unrolled, each submodule with its index as a constant (TorchScript's way
            # to pick a ModuleList's entry by a run-time index: `if i == idx: out = block(x)`)
            first = self.const_values[start.id]
            return ("modules", [(self.const(first + k), ModuleRef(m)) for k, m in enumerate(inner[1].obj)])
        if inner[0] != "loop":
            raise self.unsupported("enumerate() over tuples or modules", it)
        return ("loop", inner[1], lambda i: [self.emit1("prim::add", [i, start], T.INT), inner[2](i)])

    def unrolled_tuple(self, s: ast.For, items: list[SValue]) -> None:
        """`for x in some_tuple`: the body once per element (each may have its own type)."""
        if _has_exit(s.body, True):
            raise self.unsupported("break, continue or return in a loop over a tuple", s)
        for v in items:
            self.assign(s.target, v)
            if self.compile_stmts(s.body) is not None:
                raise self.unsupported("raise in a loop over a tuple", s)
        return None

    def unrolled_modules(self, s: ast.For, ref) -> None:
        """`for m in self.layers` over a Sequential or ModuleList (or a ModuleDict's keys(), values(),
        items()): the body once per submodule."""
        if _has_exit(s.body, True):
            raise self.unsupported("break, continue or return in a loop over modules", s)
        if isinstance(ref, list):
            items = ref
        elif _is_parameter_list(ref.obj):  # its parameters, read at each call as a module's parameters are
            items = [self.attr_input(ref.obj, name, T.TENSOR) for name in ref.obj._parameters]
        elif _is_module_dict(ref.obj):
            items = [self.const(k) for k in ref.obj.keys()]
        else:
            items = [ModuleRef(m) for m in ref.obj]
        for item in items:
            if isinstance(item, tuple):
                if not (isinstance(s.target, ast.Tuple) and len(s.target.elts) == 2):
                    raise self.unsupported("a ModuleDict's items() or enumerate() of modules not unpacked into "
                                           "(key, module)", s.target)
                self.assign(s.target.elts[0], item[0])
                self.env[s.target.elts[1].id] = item[1]
            elif isinstance(item, ModuleRef):
                if not isinstance(s.target, ast.Name):
                    raise self.unsupported("unpacking the items of a module container", s.target)
                self.env[s.target.id] = item
            else:
                self.assign(s.target, item)
            if self.compile_stmts(s.body) is not None:
                raise self.unsupported("raise in a loop over modules", s)
        return None

    def stmt_While(self, s: ast.While) -> None:
        if s.orelse:
            raise self.unsupported("while ... else", s)
        first = self.condition(s.test)
        self.compile_loop(s, self.const(_INT64_MAX), first, lambda i: None, lambda: self.condition(s.test))
        return None

    def compile_loop(self, s, trips: SValue, cond: SValue, bind_item, end_cond) -> None:
        carried = [n for n in _assigned_names(s.body) if isinstance(self.env.get(n), SValue)]
        if _returns_inside(s):
            carried += [_RET_FLAG, _RET_VAL]
        nid, _ = self.g.append(self.block, "prim::Loop", [trips.id, cond.id] + [self.env[n].id for n in carried], [])
        body = self.g.add_block(nid)
        before = dict(self.env)
        i = SValue(self.g.add_param(body, "int", ""), T.INT)  # the trip counter, not a variable
        for n in carried:
            self.env[n] = SValue(self.g.add_param(body, str(before[n].type), n), before[n].type)
        ctx = LoopCtx(self, carried, end_cond)
        if not hasattr(self, "ctxs"):
            self.ctxs = []
        self.ctxs.append(ctx)
        try:
            def run():
                bind_item(i)
                return self.compile_body(s.body)

            ex = self.in_block(body, run)
        finally:
            self.ctxs.pop()
        if ex.raises:
            ex = Exit([self.in_block(body, self.const, False)] + [self.env[n] for n in carried])
        for n, v in zip(carried, ex.values[1:]):
            if v.type != before[n].type and not T.accepts(before[n].type, v.type):
                raise self.error(f"variable '{n}' changes type in the loop: {before[n].type} before it, "
                                 f"{v.type} after an iteration", s)
        self.g.set_returns(body, [v.id for v in ex.values])
        self.env = before
        for n in carried:
            self.env[n] = SValue(self.g.add_output(nid, str(before[n].type)), before[n].type)
            self.g.set_name(self.env[n].id, n)
