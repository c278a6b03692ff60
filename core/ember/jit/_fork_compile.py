"""ember.jit.fork / wait in scripted code: `fut = ember.jit.fork(fn, *args)` compiles to a prim::fork node
whose block is fn's body (parameters bound to args) and whose output is a Future[T]; `ember.jit.wait(fut)`
to prim::wait. At run time the block runs as a task on the interpreter's inter-op pool (jit/fork.h)."""
from __future__ import annotations

import ast

from . import _fork
from . import _types as T
from ._compiler import ModuleRef, PyRef, SValue


def future_of(t: T.JitType) -> T.JitType:
    return T.JitType("Future", (t,))


def compile_fork_or_wait(c, callee, node: ast.Call) -> SValue:
    """c: the ExprCompiler compiling the call."""
    if node.keywords:
        raise c.unsupported(f"keyword arguments to ember.jit.{callee.__name__}", node)
    if callee is _fork.wait:
        if len(node.args) != 1:
            raise c.error("ember.jit.wait takes one Future", node)
        fut = c.expr(node.args[0])
        if fut.type.kind != "Future":
            raise c.error(f"ember.jit.wait expects a Future, got {fut.type}", node.args[0])
        return c.emit1("prim::wait", [fut], fut.type.elems[0], node)
    if not node.args:
        raise c.error("ember.jit.fork takes a function and its arguments", node)
    fn = c.expr_or_ref(node.args[0])
    if isinstance(fn, SValue):
        raise c.error(f"ember.jit.fork: a value of type {fn.type} is not callable", node.args[0])
    args = [c.expr(a) for a in node.args[1:]]
    node_id, _ = c.g.append(c.block, "prim::fork", [a.id for a in args], [])
    block = c.g.add_block(node_id)
    params = [SValue(c.g.add_param(block, str(a.type), ""), a.type) for a in args]
    result = c.in_block(block, _call, c, fn, params, node)
    c.g.set_returns(block, [result.id])
    t = future_of(result.type)
    return SValue(c.g.add_output(node_id, str(t)), t)


def _call(c, fn, params, node) -> SValue:
    if isinstance(fn, ModuleRef) and getattr(type(fn.obj), "_ember_compiled_module", False):  # a compiled module
        sm = fn.obj
        if len(params) != len(sm._sig.parameters):
            raise c.error(f"ember.jit.fork: the compiled module {sm.original_name} takes "
                          f"{len(sm._sig.parameters)} arguments, got {len(params)}", node)
        values = list(params) + [c.module_attr(ModuleRef(m), name, node) for m, name in sm._attr_inputs]
        return SValue(c.g.inline_graph(c.block, sm._g, [v.id for v in values])[0], sm.return_type)
    if isinstance(fn, ModuleRef):
        return c.inline_call(type(fn.obj).forward, params, {}, node, fn)
    obj = fn.obj if isinstance(fn, PyRef) else fn
    if getattr(obj, "_traced", False):
        outs = c.g.inline_graph(c.block, obj._g, [p.id for p in params])
        return SValue(outs[0], obj.return_type)
    target = getattr(obj, "__wrapped_script_fn__", obj)
    if not (callable(target) and hasattr(target, "__code__")):
        raise c.unsupported(f"forking {getattr(obj, '__qualname__', repr(obj))}", node.args[0])
    return c.inline_call(target, params, {}, node)
