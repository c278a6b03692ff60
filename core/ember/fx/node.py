"""Node: one operation of a Graph (torch.fx.Node's API): its op kind, target, args/kwargs (which refer
to earlier Nodes), the Nodes that use it, and a free-form `meta` dict for passes."""
from __future__ import annotations

from typing import Any, Callable

from .immutable_collections import immutable_dict, immutable_list

__all__ = ["Node", "map_arg", "map_aggregate", "Argument", "Target"]

Argument = Any
Target = Any

_OPCODES = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")


def map_aggregate(a, fn: Callable):
    """fn applied to every leaf of a nested tuple/list/dict/slice structure (the structure rebuilt,
    lists and dicts as their immutable variants, as PyTorch does)."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(elem, fn) for elem in a)
        # a named tuple is rebuilt from its fields
        return t if not hasattr(a, "_fields") else type(a)(*t)
    if isinstance(a, list):
        return immutable_list(map_aggregate(elem, fn) for elem in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn: Callable):
    """fn applied to every Node inside the argument structure a."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _qualified_name(target) -> str:
    """The dotted name of a callable target, as fx prints it ('ember.relu', 'operator.add')."""
    from ._naming import qualified_name
    return qualified_name(target)


class Node:
    """One node of a Graph. Kept in a doubly linked list (`prev`/`next`) owned by the graph."""

    def __init__(self, graph, name: str, op: str, target: Target, args: tuple, kwargs: dict,
                 return_type: Any = None) -> None:
        if op not in _OPCODES:
            raise AssertionError(f"Unknown op {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target).__name__} but a Callable is expected")
        if op in ("call_method", "call_module", "get_attr", "placeholder") and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target).__name__} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes: dict[Node, None] = {}
        self.users: dict[Node, None] = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta: dict[str, Any] = {}
        self._args: tuple = ()
        self._kwargs: dict = {}
        self.__update_args_kwargs(args, kwargs)

    # ---- list links -------------------------------------------------------------------------
    @property
    def next(self) -> Node:
        return self._next

    @property
    def prev(self) -> Node:
        return self._prev

    def prepend(self, x: Node) -> None:
        """Put x just before this node (removing it from where it was)."""
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        if self is x:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: Node) -> None:
        """Put x just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # ---- arguments --------------------------------------------------------------------------
    @property
    def args(self) -> tuple:
        return self._args

    @args.setter
    def args(self, a) -> None:
        self.__update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self) -> dict:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k) -> None:
        self.__update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self) -> list[Node]:
        return list(self._input_nodes)

    def update_arg(self, idx: int, arg) -> None:
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx: int, arg) -> None:
        args = list(self.args)
        args.insert(idx, arg)
        self.args = tuple(args)

    def update_kwarg(self, key: str, arg) -> None:
        self.kwargs = {**self.kwargs, key: arg}

    def __update_args_kwargs(self, new_args, new_kwargs) -> None:
        for old_use in self._input_nodes:
            old_use.users.pop(self)
        self._input_nodes = {}
        self._args = map_aggregate(tuple(new_args), self._register_input)
        self._kwargs = map_aggregate(dict(new_kwargs), self._register_input)
        for new_use in self._input_nodes:
            new_use.users.setdefault(self)

    def _register_input(self, x):
        if isinstance(x, Node):
            self._input_nodes.setdefault(x)
        return x

    # ---- rewiring ---------------------------------------------------------------------------
    def replace_all_uses_with(self, replace_with: Node, delete_user_cb: Callable = lambda user: True, *,
                              propagate_meta: bool = False) -> list[Node]:
        """Every use of this node becomes a use of replace_with; returns the users changed."""
        if propagate_meta:
            if len(replace_with.meta) != 0:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, propagate_meta=True), "
                                     "but replace_with already has .meta keys")
            replace_with.meta.update(self.meta)
        to_process = [u for u in self.users if delete_user_cb(u)]
        for user in to_process:
            user._replace_input(self, replace_with)
        return to_process

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Every use of old_input among this node's arguments becomes new_input."""
        self._replace_input(old_input, new_input)

    def _replace_input(self, old: Node, new: Node) -> None:
        def swap(n):
            return new if n is old else n
        self.__update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def is_impure(self) -> bool:
        """Whether eliminate_dead_code must keep this node though nothing uses its value."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            from ._side_effects import has_side_effect_target
            return has_side_effect_target(self.target)
        if self.op == "call_method":
            return isinstance(self.target, str) and self.target.endswith("_") and not self.target.endswith("__")
        if self.op == "call_module":
            mod = self.graph.owning_module
            if mod is None:
                return False
            target = mod.get_submodule(self.target)
            return getattr(target, "_is_impure", False)
        return False

    # ---- printing ---------------------------------------------------------------------------
    def __repr__(self) -> str:
        return self.name

    def _pretty_print_target(self, target) -> str:
        if isinstance(target, str):
            return target
        if callable(target):
            return _qualified_name(target)
        return str(target)

    def format_node(self, placeholder_names: list | None = None, maybe_return_typename: list | None = None) -> str:
        """The node as Graph.__str__ prints it (PyTorch's format)."""
        if self.op == "placeholder":
            arg_str = self.target
            arg_str += f": {self.type}" if self.type else ""
            if placeholder_names is not None:
                placeholder_names.append(arg_str)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={self.target}]"
        if self.op == "output":
            if self.type and maybe_return_typename is not None:
                maybe_return_typename[0] = f" -> {self.type}"
            return f"return {self.args[0]}"
        return (f"%{self.name} : [num_users={len(self.users)}] = {self.op}"
                f"[target={self._pretty_print_target(self.target)}](args = {_format_arg(self.args)}, "
                f"kwargs = {_format_arg(self.kwargs)})")


def _format_arg(arg, max_list_len: float = float("inf")) -> str:
    if hasattr(arg, "_custom_fx_repr_fn"):
        return arg._custom_fx_repr_fn()
    if isinstance(arg, list):
        items = ", ".join(_format_arg(a) for idx, a in enumerate(arg) if idx < max_list_len)
        maybe_len = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"[{items}{maybe_len}]"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for idx, a in enumerate(arg) if idx < max_list_len)
        maybe_len = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        maybe_comma = "," if len(arg) == 1 else ""
        return f"({items}{maybe_comma}{maybe_len})"
    if isinstance(arg, dict):
        items_str = ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items())
        return f"{{{items_str}}}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)

