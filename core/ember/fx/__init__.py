"""ember.fx: symbolic tracing of modules into Graphs of calls to ember's functions, graph rewrites,
and GraphModules regenerated as Python (PyTorch's torch.fx API)."""
from ._side_effects import has_side_effect
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap
from .graph import CodeGen, Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, map_arg
from .proxy import Proxy
from .subgraph_rewriter import replace_pattern

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter", "Transformer", "Node",
           "Proxy", "replace_pattern", "has_side_effect", "PH", "CodeGen", "map_arg"]
