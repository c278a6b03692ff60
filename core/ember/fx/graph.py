"""Graph: the ordered list of Nodes of one program (torch.fx.Graph's API): node creation by op kind,
insertion points, copying, dead-code elimination, checking, printing and Python code generation."""
from __future__ import annotations

import copy
import inspect
from typing import Any, Callable

from ._codegen import CodeGen, PythonCode
from ._naming import Namespace, qualified_name, snake_case
from .node import Node, _format_arg, map_arg

__all__ = ["Graph", "PythonCode", "CodeGen"]


class _NodeList:
    """A live view of the graph's nodes in order (or in reverse)."""

    def __init__(self, graph: Graph, reverse: bool = False):
        self._graph, self._reverse = graph, reverse

    def __len__(self) -> int:
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        cur = root._prev if self._reverse else root._next
        while cur is not root:
            nxt = cur._prev if self._reverse else cur._next
            if not cur._erased:
                yield cur
            cur = nxt

    def __reversed__(self):
        return iter(_NodeList(self._graph, not self._reverse))


class _InsertPoint:
    def __init__(self, graph: Graph, new_insert: Callable):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.graph._insert = self.orig_insert
        return False


class Graph:
    """The IR of fx: a doubly linked list of Nodes behind a sentinel `root` node."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras: dict | None = None):
        self._root = Node(self, "", "root", "", (), {})
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = CodeGen()

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    @property
    def nodes(self) -> _NodeList:
        return _NodeList(self)

    def find_nodes(self, *, op: str, target=None) -> list[Node]:
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---- node creation ----------------------------------------------------------------------
    def create_node(self, op: str, target, args: tuple | None = None, kwargs: dict | None = None,
                    name: str | None = None, type_expr: Any = None) -> Node:
        """A new node inserted at the current insertion point (the end, unless inserting_before/after)."""
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError("args must be a tuple")
        if not isinstance(kwargs, dict):
            raise AssertionError("kwargs must be a dict")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._insert(n)
        self._len += 1
        return n

    def _target_to_str(self, target) -> str:
        if callable(target):
            op = getattr(target, "__name__", None) or qualified_name(target).split(".")[-1]
        else:
            op = str(target)
            if op.startswith("*"):
                op = op.lstrip("*")
        return snake_case(op.replace(".", "_"))

    def placeholder(self, name: str, type_expr: Any = None, default_value: Any = inspect.Signature.empty) -> Node:
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any = None) -> Node:
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args: tuple | None = None, kwargs: dict | None = None,
                    type_expr: Any = None) -> Node:
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args: tuple | None = None, kwargs: dict | None = None,
                    type_expr: Any = None) -> Node:
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable, args: tuple | None = None, kwargs: dict | None = None,
                      type_expr: Any = None) -> Node:
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr: Any = None) -> Node:
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    # ---- insertion points ---------------------------------------------------------------------
    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        """Within the `with`, new nodes go just before n (the start of the graph when n is None)."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        """Within the `with`, new nodes go just after n (in order; the end of the graph when n is None)."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, _AfterInserter(n))

    # ---- removal and copying ----------------------------------------------------------------
    def erase_node(self, to_erase: Node) -> None:
        """Removes a node that nothing uses any more."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                               f"users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        self._graph_namespace.forget(to_erase.name)
        to_erase.args, to_erase.kwargs = (), {}

    def node_copy(self, node: Node, arg_transform: Callable[[Node], Any] = lambda x: x) -> Node:
        """A copy of node (from any graph) in this graph, its Node arguments mapped by arg_transform."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, tuple(args), dict(kwargs), node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(self, g: Graph, val_map: dict, return_output_node: bool = False):
        """Copies every node of g but its output into this graph (val_map maps g's nodes to the copies
        and may be pre-filled); returns the value g outputs, in terms of this graph's nodes."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None) -> Graph:
        memo = memo if memo else {}
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, val_map=memo, return_output_node=True)
        g._codegen = copy.deepcopy(self._codegen)
        if output_vals is not None:
            rv, output_node = output_vals
            new_out = g.output(rv, type_expr=getattr(output_node, "type", None))
            new_out.meta = copy.copy(output_node.meta)
        return g

    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None) -> bool:
        """Removes nodes whose values nothing uses and that have no side effects; True if any went."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    # ---- checking and printing --------------------------------------------------------------
    def lint(self) -> None:
        """Checks the graph's invariants (every argument defined earlier and in this graph, names
        unique, targets present in the owning module); raises RuntimeError naming what is wrong."""
        seen_names: set[str] = set()
        seen_values: set[Node] = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node.op not in ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output"):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to this Graph, but "
                                       "was used as an argument! If you are copying nodes from another graph, "
                                       "make sure to use ``arg_transform`` on node_copy() to remap values\n"
                                       f"{self}")
                if arg not in seen_values:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been defined! "
                                       "Please check that Nodes in the graph are topologically ordered\n"
                                       f"{self}")
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
            seen_values.add(node)
        mod = self.owning_module
        if mod is None:
            return
        for node in self.nodes:
            if node.op in ("get_attr", "call_module"):
                m_itr = mod
                for i, atom in enumerate(node.target.split(".")):
                    if not hasattr(m_itr, atom):
                        seen_qualname = ".".join(node.target.split(".")[:i])
                        raise RuntimeError(f"Node {node} target {node.target} references nonexistent "
                                           f"attribute {atom} of {seen_qualname}")
                    m_itr = getattr(m_itr, atom)
                from ..nn import Module
                if node.op == "call_module" and not isinstance(m_itr, Module):
                    raise RuntimeError(f"Node {node} target {node.target} {atom} of {seen_qualname} does "
                                       "not reference an nn.Module")

    def print_tabular(self) -> None:
        """Prints the nodes as a table with `tabulate` (which, as in PyTorch, must be installed)."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found on this machine. "
                  "Run `pip install tabulate` to install the library.")
            raise
        node_specs = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(node_specs, headers=["opcode", "name", "target", "args", "kwargs"]))

    def __str__(self) -> str:
        node_strs = [node.format_node() for node in self.nodes]
        s = "graph():"
        for node_str in node_strs:
            if node_str:
                s += "\n    " + node_str
        return s

    def python_code(self, root_module: str, *, verbose: bool = False) -> PythonCode:
        """The graph as the source of a `forward` function and the globals it needs."""
        return self._codegen.python_code(self, root_module)

    def set_codegen(self, codegen: CodeGen) -> None:
        self._codegen = codegen

    def _format_arg(self, arg) -> str:
        return _format_arg(arg)


class _AfterInserter:
    """Inserts each new node after the previous one, so a sequence keeps its order."""

    def __init__(self, n: Node):
        self._last = n

    def __call__(self, new: Node) -> None:
        self._last.append(new)
        self._last = new

