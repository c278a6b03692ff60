"""split_module: a GraphModule cut into one submodule per partition (`submod_<n>`) by a callback that
assigns each node a partition, and a top graph calling them in dependency order
(torch.fx.passes.split_module)."""
from __future__ import annotations

import inspect
from typing import Any, Callable

from ..graph import Graph
from ..graph_module import GraphModule
from ..node import Node, map_arg

__all__ = ["Partition", "split_module"]


class Partition:
    def __init__(self, name: str):
        self.name = name
        self.submod_name = f"submod_{name}"
        self.node_names: list[str] = []
        self.inputs: dict[str, None] = {}
        self.outputs: dict[str, None] = {}
        self.dependencies: dict[str, None] = {}
        self.dependents: dict[str, None] = {}
        self.graph = Graph()
        self.environment: dict[Node, Node] = {}
        self.targets: dict[str, Any] = {}

    def __repr__(self) -> str:
        return (f"name: {self.name},\n nodes: {self.node_names},\n inputs: {list(self.inputs)},\n outputs: "
                f"{list(self.outputs)},\n partitions depended on: {list(self.dependencies)},\n partition "
                f"dependents: {list(self.dependents)}")


def _fetch(root, target: str):
    for atom in target.split("."):
        root = getattr(root, atom)
    return root


def _topological_order(partitions: dict[str, Partition]) -> list[str]:
    pending = {name: len(p.dependencies) for name, p in partitions.items()}
    ready = [name for name, count in pending.items() if count == 0]
    order: list[str] = []
    while ready:
        name = ready.pop(0)
        order.append(name)
        for dependent in partitions[name].dependents:
            pending[dependent] -= 1
            if pending[dependent] == 0:
                ready.append(dependent)
    if len(order) != len(partitions):
        raise RuntimeError("cycle exists between partitions!")
    return order


def split_module(m: GraphModule, root_m, split_callback: Callable[[Node], Any], qualname_map: dict | None = None,
                 keep_original_order: bool = False, keep_original_node_name: bool = False) -> GraphModule:
    """m's graph split by split_callback(node) (a partition id for each call node); root_m holds the
    attributes the nodes name. qualname_map, when given, receives {new qualified name: original} for
    the modules moved into submodules. Node names are always kept."""
    if keep_original_order:
        raise NotImplementedError("split_module(keep_original_order=True) is not supported by ember.fx yet")
    partitions: dict[str, Partition] = {}
    partition_of: dict[Node, str] = {}
    for node in m.graph.nodes:
        if node.op in ("placeholder", "get_attr", "output"):
            continue
        name = str(split_callback(node))
        partition = partitions.setdefault(name, Partition(name))
        partition.node_names.append(node.name)
        partition_of[node] = name

    for node in m.graph.nodes:
        if node.op in ("placeholder", "get_attr"):
            continue
        use_partition = partition_of.get(node)  # None for the output node
        for def_node in node.all_input_nodes:
            if def_node.op == "get_attr":
                continue  # attributes are fetched where they are used
            def_partition = partition_of.get(def_node)
            if def_partition == use_partition:
                continue
            if def_partition is not None:
                partitions[def_partition].outputs.setdefault(def_node.name)
            if use_partition is not None:
                partitions[use_partition].inputs.setdefault(def_node.name)
            if def_partition is not None and use_partition is not None:
                partitions[def_partition].dependents.setdefault(use_partition)
                partitions[use_partition].dependencies.setdefault(def_partition)

    order = _topological_order(partitions)
    nodes_by_name = {n.name: n for n in m.graph.nodes}
    for name in partitions:
        _build_partition_graph(partitions[name], m, root_m, nodes_by_name, partition_of, qualname_map)

    base_graph = Graph()
    base_env: dict[str, Node] = {}
    base_attrs: dict[str, Any] = {}
    for node in m.graph.nodes:
        if node.op == "placeholder":
            default = node.args[0] if node.args else inspect.Signature.empty
            base_env[node.name] = base_graph.placeholder(node.target, type_expr=node.type, default_value=default)
            base_env[node.name].meta = node.meta.copy()
    for name in order:
        partition = partitions[name]
        submod = GraphModule(partition.targets, partition.graph)
        base_attrs[partition.submod_name] = submod
        call = base_graph.call_module(partition.submod_name, tuple(base_env[i] for i in partition.inputs))
        outputs = list(partition.outputs)
        if len(outputs) == 1:
            base_env[outputs[0]] = call
        else:
            import operator
            for i, out_name in enumerate(outputs):
                base_env[out_name] = base_graph.call_function(operator.getitem, (call, i))
    output_node = next(n for n in m.graph.nodes if n.op == "output")

    def base_value(n: Node) -> Node:
        if n.op == "get_attr":
            base_attrs[n.target] = _fetch(root_m, n.target)
            return base_graph.get_attr(n.target)
        return base_env[n.name]
    base_graph.output(map_arg(output_node.args[0], base_value))
    return GraphModule(base_attrs, base_graph)


def _build_partition_graph(partition: Partition, m: GraphModule, root_m, nodes_by_name, partition_of,
                           qualname_map: dict | None) -> None:
    env = partition.environment
    for input_name in partition.inputs:
        orig = nodes_by_name[input_name]
        env[orig] = partition.graph.placeholder(input_name, type_expr=orig.type)

    def local(n: Node) -> Node:
        if n.op == "get_attr" and n not in env:
            partition.targets[n.target] = _fetch(root_m, n.target)
            env[n] = partition.graph.get_attr(n.target)
        return env[n]
    for node in m.graph.nodes:
        if partition_of.get(node) != partition.name:
            continue
        if node.op == "call_module":
            partition.targets[node.target] = _fetch(root_m, node.target)
            if qualname_map is not None:
                qualname_map[f"{partition.submod_name}.{node.target}"] = node.target
        env[node] = partition.graph.node_copy(node, local)
    outputs = tuple(env[nodes_by_name[name]] for name in partition.outputs)
    partition.graph.output(outputs[0] if len(outputs) == 1 else outputs)
