"""fuse: folds each BatchNorm that follows a Conv (or Linear) into the Conv's weights, for inference
(torch.fx.experimental.optimization.fuse)."""
from __future__ import annotations

import copy

from ... import nn
from ...nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval
from .._symbolic_trace import symbolic_trace
from ..graph_module import GraphModule
from ..node import Node

__all__ = ["matches_module_pattern", "replace_node_module", "fuse"]


def _parent_name(target: str) -> tuple[str, str]:
    *parent, name = target.rsplit(".", 1)
    return (parent[0] if parent else ""), name


def matches_module_pattern(pattern: tuple, node: Node, modules: dict) -> bool:
    """Whether node and its first argument are calls of modules of the types pattern = (first, second)."""
    if len(node.args) == 0:
        return False
    nodes = (node.args[0], node)
    for expected_type, current_node in zip(pattern, nodes):
        if not isinstance(current_node, Node) or current_node.op != "call_module":
            return False
        if not isinstance(current_node.target, str) or current_node.target not in modules:
            return False
        if type(modules[current_node.target]) is not expected_type:
            return False
    return True


def replace_node_module(node: Node, modules: dict, new_module) -> None:
    if not isinstance(node.target, str):
        raise AssertionError("a call_module node's target is a str")
    parent_name, name = _parent_name(node.target)
    modules[node.target] = new_module
    setattr(modules[parent_name], name, new_module)


def fuse(model, inplace: bool = False, no_trace: bool = False) -> GraphModule:
    """model traced (unless no_trace: it is a GraphModule already) with every conv->bn and linear->bn
    pair, whose first output only the BatchNorm uses, folded into one module."""
    patterns = [(nn.Conv1d, nn.BatchNorm1d), (nn.Conv2d, nn.BatchNorm2d), (nn.Conv3d, nn.BatchNorm3d),
                (nn.Linear, nn.BatchNorm1d)]
    if not inplace:
        model = copy.deepcopy(model)
    fx_model = model if no_trace and isinstance(model, GraphModule) else symbolic_trace(model)
    modules = dict(fx_model.named_modules())
    new_graph = copy.deepcopy(fx_model.graph)
    for pattern in patterns:
        for node in new_graph.nodes:
            if not matches_module_pattern(pattern, node, modules):
                continue
            if len(node.args[0].users) > 1:  # the conv's output is used by others too
                continue
            first = modules[node.args[0].target]
            bn = modules[node.target]
            if not bn.track_running_stats:
                continue
            if pattern[0] is nn.Linear:
                fused = fuse_linear_bn_eval(first, bn)
            else:
                fused = fuse_conv_bn_eval(first, bn)
            replace_node_module(node.args[0], modules, fused)
            node.replace_all_uses_with(node.args[0])
            new_graph.erase_node(node)
    return GraphModule(fx_model, new_graph)
