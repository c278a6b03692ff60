"""Python source for a Graph: one statement per node, calls to ember's functions by their dotted names
(`ember.relu(x)`), operators written as operators, and `a = None` after a value's last use so tensors
are freed as early as eagerly run code frees them."""
from __future__ import annotations

import builtins
import dataclasses
import math
import operator
from typing import Any

from ._naming import Namespace, qualified_name, resolve_dotted
from .node import Node

__all__ = ["PythonCode", "CodeGen"]

_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
           operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
           operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.lshift: "<<",
           operator.rshift: ">>", operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=",
           operator.gt: ">", operator.ge: ">="}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~", operator.not_: "not "}


@dataclasses.dataclass
class PythonCode:
    """The generated source and the globals it runs with."""
    src: str
    globals: dict[str, Any]
    _lineno_map: dict | None = None


def _is_identifier(s: str) -> bool:
    return s.isidentifier() and not s[0].isdigit()


def _attr_path(base: str, target: str) -> str:
    """self.a.b, or getattr(self.seq, "0") for parts that are not identifiers."""
    out = base
    for part in target.split("."):
        out = f"{out}.{part}" if _is_identifier(part) else f'getattr({out}, "{part}")'
    return out


class CodeGen:
    """Writes a Graph's forward (subclass and override gen_fn_def / generate_output to change its shape,
    as torch.fx.CodeGen)."""

    _PER_RUN = ("_globals", "_namespace", "_root")

    def __getstate__(self):
        # the state of one python_code() run (it holds modules) is not part of a copy
        return {k: v for k, v in self.__dict__.items() if k not in self._PER_RUN}

    def gen_fn_def(self, free_vars: list[str], maybe_return_annotation: str) -> str:
        if len(free_vars) == 0 or free_vars[0] != "self":
            free_vars.insert(0, "self")
        return f"def forward({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args) -> str:
        return f"return {self._repr(output_args)}"

    # ---- the body -------------------------------------------------------------------------------
    def python_code(self, graph, root_module: str = "self") -> PythonCode:
        import ember
        self._globals: dict[str, Any] = {"ember": ember, "inf": math.inf, "nan": math.nan,
                                         "NoneType": type(None), "device": ember.device}
        self._namespace = Namespace()
        for n in self._globals:
            self._namespace.create_name(n)
        self._root = root_module
        for node in graph.nodes:  # globals must not take a node's name
            self._namespace.create_name(node.name)
        free_vars: list[str] = []
        body: list[str] = []
        last_user = self._last_users(graph)
        for node in graph.nodes:
            line = self._emit(node, free_vars)
            if line is None:
                continue
            dead = [n.name for n in last_user.get(node, ())]
            if dead and node.op != "output":
                line += f";  {' = '.join(dead)} = None"
            body.append(line)
        if not any(n.op == "output" for n in graph.nodes):
            body.append("pass")
        fn_def = self.gen_fn_def(free_vars, "")
        code = "\n".join("    " + b for b in body)
        return PythonCode(f"\n\n\n{fn_def}\n{code}\n    ", self._globals)

    @staticmethod
    def _last_users(graph) -> dict[Node, list[Node]]:
        """{user: the values whose last use it is}."""
        seen: dict[Node, Node] = {}
        by_user: dict[Node, list[Node]] = {}
        for node in reversed(list(graph.nodes)):
            for inp in node.all_input_nodes:
                if inp not in seen:
                    seen[inp] = node
                    by_user.setdefault(node, []).append(inp)
        return by_user

    def _global(self, obj, hint: str) -> str:
        name = self._namespace.create_name(hint, obj)
        self._globals[name] = obj
        return name

    def _target_name(self, target) -> str:
        qual = qualified_name(target)
        if qual.startswith("ember."):
            try:
                if resolve_dotted(qual) is target:
                    return qual
            except (ImportError, AttributeError):
                pass
        if getattr(builtins, getattr(target, "__name__", ""), None) is target:
            return target.__name__
        return self._global(target, getattr(target, "__name__", "fn"))

    def _repr(self, arg) -> str:
        if isinstance(arg, Node):
            return arg.name
        if isinstance(arg, tuple) and hasattr(arg, "_fields"):
            return f"{self._global(type(arg), type(arg).__name__)}({', '.join(self._repr(a) for a in arg)})"
        if isinstance(arg, tuple):
            inner = ", ".join(self._repr(a) for a in arg)
            return f"({inner},)" if len(arg) == 1 else f"({inner})"
        if isinstance(arg, list):
            return f"[{', '.join(self._repr(a) for a in arg)}]"
        if isinstance(arg, dict):
            return "{" + ", ".join(f"{self._repr(k)}: {self._repr(v)}" for k, v in arg.items()) + "}"
        if isinstance(arg, slice):
            return f"slice({self._repr(arg.start)}, {self._repr(arg.stop)}, {self._repr(arg.step)})"
        if arg is None or isinstance(arg, (bool, int, str)) or arg is Ellipsis:
            return repr(arg)
        if isinstance(arg, float):
            return repr(arg)  # 'inf' and 'nan' are globals
        if isinstance(arg, complex):
            return f"complex({self._repr(arg.real)}, {self._repr(arg.imag)})"
        if isinstance(arg, type) or callable(arg):
            return self._target_name(arg)
        import ember
        if isinstance(arg, ember.device):  # `device` is a global of the generated code
            return f"device({arg.type!r})" if arg.index is None else f"device({arg.type!r}, {arg.index})"
        text = repr(arg)
        if text.startswith("ember."):
            try:
                if resolve_dotted(text) == arg:
                    return text
            except (ImportError, AttributeError):
                pass
        return self._global(arg, type(arg).__name__)

    def _call_args(self, args, kwargs) -> str:
        parts = [self._repr(a) for a in args] + [f"{k} = {self._repr(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def _emit(self, node: Node, free_vars: list[str]) -> str | None:
        op, target, args, kwargs = node.op, node.target, node.args, node.kwargs
        if op == "placeholder":
            annotation = ""
            default = f" = {self._repr(args[0])}" if args else ""
            free_vars.append(f"{target}{annotation}{default}")
            if target.lstrip("*") != node.name:
                return f"{node.name} = {target.lstrip('*')}"
            return None
        if op == "get_attr":
            return f"{node.name} = {_attr_path(self._root, target)}"
        if op == "call_module":
            return f"{node.name} = {_attr_path(self._root, target)}({self._call_args(args, kwargs)})"
        if op == "call_method":
            return f"{node.name} = {self._repr(args[0])}.{target}({self._call_args(args[1:], kwargs)})"
        if op == "output":
            return self.generate_output(args[0])
        # call_function
        if not kwargs and target in _BINARY and len(args) == 2:
            return f"{node.name} = {self._repr(args[0])} {_BINARY[target]} {self._repr(args[1])}"
        if not kwargs and target in _UNARY and len(args) == 1:
            return f"{node.name} = {_UNARY[target]}{self._repr(args[0])}"
        if not kwargs and target is operator.getitem and len(args) == 2:
            return f"{node.name} = {self._repr(args[0])}[{self._repr(args[1])}]"
        if (target is builtins.getattr and not kwargs and len(args) == 2 and isinstance(args[1], str)
                and _is_identifier(args[1])):
            return f"{node.name} = {self._repr(args[0])}.{args[1]}"
        return f"{node.name} = {self._target_name(target)}({self._call_args(args, kwargs)})"
