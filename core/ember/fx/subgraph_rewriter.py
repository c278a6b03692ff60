"""replace_pattern: finds every non-overlapping occurrence of a pattern graph in a GraphModule's graph
and replaces it with a replacement graph (torch.fx.subgraph_rewriter)."""
from __future__ import annotations

from typing import Callable, NamedTuple

from .graph_module import GraphModule
from .node import Node, map_arg

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    anchor: Node                   # the pattern node the match was found from (its output)
    nodes_map: dict[Node, Node]    # pattern node -> graph node


def _as_graph_module(fn) -> GraphModule:
    from ._symbolic_trace import symbolic_trace
    return fn if isinstance(fn, GraphModule) else symbolic_trace(fn)


def _flat_nodes(arg) -> list[Node]:
    out: list[Node] = []
    map_arg(arg, out.append)
    return out


class _Matcher:
    """Matches the pattern backwards from its outputs: same op and target, same constants, and a
    pattern input may stand for any value (the same one wherever it is used)."""

    def __init__(self, pattern: GraphModule):
        self.pattern = pattern.graph
        self.output = next(n for n in self.pattern.nodes if n.op == "output")
        self.returned = _flat_nodes(self.output.args[0])
        self.placeholders = [n for n in self.pattern.nodes if n.op == "placeholder"]

    def match_at(self, anchor: Node) -> dict[Node, Node] | None:
        nodes_map: dict[Node, Node] = {}
        if not self._match(self.returned[0], anchor, nodes_map):
            return None
        if any(r not in nodes_map for r in self.returned):
            return None
        inner = {gn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        returned = {nodes_map[r] for r in self.returned}
        for pn, gn in nodes_map.items():
            # an intermediate value used outside the match cannot be replaced away
            if pn.op != "placeholder" and gn not in returned and any(u not in inner for u in gn.users):
                return None
        return nodes_map

    def _match(self, pn: Node, gn: Node, nodes_map: dict[Node, Node]) -> bool:
        if pn in nodes_map:
            return nodes_map[pn] is gn
        if pn.op == "placeholder":
            nodes_map[pn] = gn
            return True
        if pn.op != gn.op or pn.target != gn.target or gn in nodes_map.values():
            return False
        if len(pn.args) != len(gn.args) or set(pn.kwargs) != set(gn.kwargs):
            return False
        nodes_map[pn] = gn
        pairs = list(zip(pn.args, gn.args)) + [(pn.kwargs[k], gn.kwargs[k]) for k in pn.kwargs]
        return all(self._match_arg(pa, ga, nodes_map) for pa, ga in pairs)

    def _match_arg(self, pa, ga, nodes_map) -> bool:
        if isinstance(pa, Node):
            return isinstance(ga, Node) and self._match(pa, ga, nodes_map)
        if isinstance(pa, (tuple, list)):
            return (isinstance(ga, (tuple, list)) and len(pa) == len(ga)
                    and all(self._match_arg(a, b, nodes_map) for a, b in zip(pa, ga)))
        return not isinstance(ga, Node) and type(pa) is type(ga) and pa == ga


def _copy_attr_into(gm: GraphModule, source: GraphModule, node: Node) -> None:
    """A get_attr/call_module target of the replacement, installed in gm when gm lacks it."""
    try:
        gm.get_submodule(node.target) if node.op == "call_module" else _getattr_path(gm, node.target)
        return
    except AttributeError:
        pass
    value = _getattr_path(source, node.target)
    if node.op == "call_module":
        gm.add_submodule(node.target, value)
    else:
        from .graph_module import _assign_attr
        _assign_attr(value, gm, node.target)


def _getattr_path(mod, target: str):
    for atom in target.split("."):
        mod = getattr(mod, atom)
    return mod


def replace_pattern(gm: GraphModule, pattern: Callable | GraphModule,
                    replacement: Callable | GraphModule) -> list[Match]:
    """Replaces each match of pattern in gm.graph by replacement (both traced if not GraphModules);
    the matches, found in graph order and not overlapping, are returned."""
    pattern_gm, replacement_gm = _as_graph_module(pattern), _as_graph_module(replacement)
    matcher = _Matcher(pattern_gm)
    graph = gm.graph
    matches: list[Match] = []
    used: set[Node] = set()
    for node in graph.nodes:
        nodes_map = matcher.match_at(node)
        if nodes_map is None:
            continue
        inner = {gn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        if inner & used:
            continue
        used |= inner
        matches.append(Match(anchor=matcher.returned[0], nodes_map=nodes_map))
    r_placeholders = [n for n in replacement_gm.graph.nodes if n.op == "placeholder"]
    if len(r_placeholders) != len(matcher.placeholders):
        raise ValueError(f"replacement takes {len(r_placeholders)} inputs but the pattern has "
                         f"{len(matcher.placeholders)}")
    replaced: dict[Node, Node] = {}  # a matched output -> its replacement, for inputs of later matches
    for match in matches:
        _replace_one(gm, match, matcher, replacement_gm, r_placeholders, replaced)
    graph.lint()
    gm.recompile()
    return matches


def _replace_one(gm, match: Match, matcher: _Matcher, replacement_gm, r_placeholders, replaced) -> None:
    nodes_map = match.nodes_map
    graph = gm.graph
    returned = [nodes_map[r] for r in matcher.returned]
    last = max(returned, key=lambda n: _position(graph, n))

    def current(n: Node) -> Node:
        while n in replaced:
            n = replaced[n]
        return n
    val_map = {rp: current(nodes_map[pp]) for rp, pp in zip(r_placeholders, matcher.placeholders)}
    with graph.inserting_before(last):
        for rn in replacement_gm.graph.nodes:
            if rn.op == "placeholder":
                continue
            if rn.op == "output":
                new_outputs = _flat_nodes(map_arg(rn.args[0], lambda n: val_map[n]))
                continue
            if rn.op in ("get_attr", "call_module"):
                _copy_attr_into(gm, replacement_gm, rn)
            val_map[rn] = graph.node_copy(rn, lambda n: val_map[n])
    if len(new_outputs) != len(returned):
        raise ValueError(f"replacement returns {len(new_outputs)} values but the pattern returns {len(returned)}")
    for old, new in zip(returned, new_outputs):
        old.replace_all_uses_with(new)
        replaced[old] = new
    matched = [gn for pn, gn in nodes_map.items() if pn.op != "placeholder"]
    for gn in sorted(matched, key=lambda n: _position(graph, n), reverse=True):
        if not gn.users:
            graph.erase_node(gn)


def _position(graph, node: Node) -> int:
    for i, n in enumerate(graph.nodes):
        if n is node:
            return i
    return -1
