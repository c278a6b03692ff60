"""SummaryWriter.add_graph: the model as TensorBoard's GraphDef, from ember.fx. Nodes are named by their
module path under the model's class name (TensorBoard groups them by the "/" in names, as it groups
PyTorch's traced scopes); inputs and the output are "IO Node"s; op calls are "aten::<name>" and leaf
modules their class name; with an example input, each node carries its output shape."""
from __future__ import annotations

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.config_pb2 import RunMetadata
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef

import ember


def _op_name(node, root):
    if node.op in ("placeholder", "output"):
        return "IO Node"
    if node.op == "call_module":
        return type(root.get_submodule(node.target)).__name__
    if node.op == "get_attr":
        return "prim::GetAttr"
    if node.op == "call_method":
        return f"aten::{node.target}"
    return f"aten::{getattr(node.target, '__name__', str(node.target))}"


def _shape_attr(meta):
    shapes = [meta] if hasattr(meta, "shape") else [m for m in (meta or ()) if hasattr(m, "shape")]
    protos = [TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in m.shape]) for m in shapes]
    return AttrValue(list=AttrValue.ListValue(shape=protos))


def graph_def(model, input_to_model):
    """(GraphDef, RunMetadata) of `model`, shapes propagated from input_to_model when given."""
    from ember.fx import symbolic_trace
    from ember.fx.passes.shape_prop import ShapeProp

    gm = symbolic_trace(model)
    if input_to_model is not None:
        args = input_to_model if isinstance(input_to_model, (tuple, list)) else (input_to_model,)
        with ember.no_grad():
            ShapeProp(gm).propagate(*args)
    scope = type(model).__name__
    names = {}
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            names[node] = f"input/{node.name}"
        elif node.op == "output":
            names[node] = f"output/{node.name}"
        elif node.op in ("call_module", "get_attr"):
            names[node] = f"{scope}/{node.target.replace('.', '/')}/{node.name}"
        else:
            names[node] = f"{scope}/{node.name}"
    nodes = []
    for node in gm.graph.nodes:
        attrs = {"device": AttrValue(s=b"/device:CPU:0")}
        if "tensor_meta" in node.meta:
            attrs["_output_shapes"] = _shape_attr(node.meta["tensor_meta"])
        inputs = [names[n] for n in node.all_input_nodes]
        nodes.append(NodeDef(name=names[node], op=_op_name(node, gm), input=inputs, attr=attrs))
    stats = RunMetadata(step_stats=StepStats(dev_stats=[DeviceStepStats(device="/device:CPU:0")]))
    return GraphDef(node=nodes, versions=VersionDef(producer=22)), stats
