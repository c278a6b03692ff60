"""Feature extraction by graph rewriting (torchvision.models.feature_extraction on ember.fx): trace a model,
name every node by its module path ("layer1.0.relu_1", "flatten"), and rebuild the graph so it returns a
dict of chosen intermediate nodes instead of the model's output. Train and eval mode are traced
separately, as a model's graph may differ between them."""

import math
import re
import warnings
from collections import OrderedDict
from itertools import chain

from ember import fx, nn
from ember.fx.graph_module import _copy_attr

import embervision.ops

__all__ = ["create_feature_extractor", "get_graph_node_names"]


class LeafModuleAwareTracer(fx.Tracer):
    """An fx.Tracer that also keeps the module classes in leaf_modules as leaves (not traced through)."""

    def __init__(self, *args, **kwargs):
        self.leaf_modules = tuple(kwargs.pop("leaf_modules", ()))
        super().__init__(*args, **kwargs)

    def is_leaf_module(self, m, module_qualname):
        if isinstance(m, self.leaf_modules):
            return True
        return super().is_leaf_module(m, module_qualname)


class NodePathTracer(LeafModuleAwareTracer):
    """Records, for every node it creates, a qualified name: the path of the module it was created in plus
    the node's own name, with a _N suffix counting repeats within that module (not across the model)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.current_module_qualname = ""
        self.node_to_qualname = OrderedDict()

    def call_module(self, m, forward, args, kwargs):
        old_qualname = self.current_module_qualname
        try:
            module_qualname = self.path_of_module(m)
            self.current_module_qualname = module_qualname
            if not self.is_leaf_module(m, module_qualname):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", module_qualname, args, kwargs)
        finally:
            self.current_module_qualname = old_qualname

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, *_):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
        self.node_to_qualname[proxy.node] = self._get_node_qualname(self.current_module_qualname, proxy.node)
        return proxy

    def _get_node_qualname(self, module_qualname, node):
        node_qualname = module_qualname
        if node.op != "call_module":
            # A function or method call: the module path does not name it, its node name does.
            node_qualname = f"{node_qualname}.{node}" if node_qualname else str(node)
        # fx numbers repeated names across the whole graph; number them within their module instead.
        if re.match(r".+_[0-9]+$", node_qualname) is not None:
            node_qualname = node_qualname.rsplit("_", 1)[0]
        for existing in reversed(list(self.node_to_qualname.values())):
            if re.match(rf"{re.escape(node_qualname)}(_[0-9]+)?$", existing) is not None:
                postfix = existing[len(node_qualname):]
                node_qualname += f"_{int(postfix[1:]) + 1 if postfix else 1}"
                break
        return node_qualname


def _is_subseq(x, y):
    """True when y is a subsequence of x."""
    it = iter(x)
    return all(any(x_item == y_item for x_item in it) for y_item in y)


def _warn_graph_differences(train_tracer, eval_tracer):
    train_nodes = list(train_tracer.node_to_qualname.values())
    eval_nodes = list(eval_tracer.node_to_qualname.values())
    if train_nodes == eval_nodes:
        return
    suggestion = ("When choosing nodes for feature extraction, you may need to specify output nodes for train and "
                  "eval mode separately.")
    if _is_subseq(train_nodes, eval_nodes):
        msg = ("NOTE: The nodes obtained by tracing the model in eval mode are a subsequence of those obtained in "
               "train mode. ")
    elif _is_subseq(eval_nodes, train_nodes):
        msg = ("NOTE: The nodes obtained by tracing the model in train mode are a subsequence of those obtained in "
               "eval mode. ")
    else:
        msg = "The nodes obtained by tracing the model in train mode are different to those obtained in eval mode. "
    warnings.warn(msg + suggestion)


def _set_default_tracer_kwargs(original_tracer_kwargs):
    """embervision.ops' functions are recorded as single calls (as math's are) unless the caller says more."""
    default_autowrap_modules = (math, embervision.ops)
    result = dict(original_tracer_kwargs or {})
    result["autowrap_modules"] = (tuple(set(result["autowrap_modules"]) | set(default_autowrap_modules))
                                  if "autowrap_modules" in result else default_autowrap_modules)
    result["leaf_modules"] = list(result.get("leaf_modules", ()))
    return result


def get_graph_node_names(model, tracer_kwargs=None, suppress_diff_warning=False, concrete_args=None):
    """The qualified names of model's nodes as (train mode, eval mode) lists, in execution order: the names
    create_feature_extractor accepts. tracer_kwargs go to the tracer (autowrap_modules, autowrap_functions,
    leaf_modules); a warning says when the two modes' graphs differ unless suppress_diff_warning."""
    tracer_kwargs = _set_default_tracer_kwargs(tracer_kwargs)
    is_training = model.training
    train_tracer = NodePathTracer(**tracer_kwargs)
    train_tracer.trace(model.train(), concrete_args=concrete_args)
    eval_tracer = NodePathTracer(**tracer_kwargs)
    eval_tracer.trace(model.eval(), concrete_args=concrete_args)
    if not suppress_diff_warning:
        _warn_graph_differences(train_tracer, eval_tracer)
    model.train(is_training)
    return list(train_tracer.node_to_qualname.values()), list(eval_tracer.node_to_qualname.values())


class DualGraphModule(fx.GraphModule):
    """A GraphModule holding a train-mode and an eval-mode graph; train()/eval() switch between them."""

    def __init__(self, root, train_graph, eval_graph, class_name="GraphModule"):
        nn.Module.__init__(self)
        self.__class__.__name__ = class_name
        self.__class__.__qualname__ = class_name
        self.train_graph = train_graph
        self.eval_graph = eval_graph
        for node in chain(train_graph.nodes, eval_graph.nodes):
            if node.op in ("get_attr", "call_module"):
                if not isinstance(node.target, str):
                    raise TypeError(f"node.target should be of type str instead of {type(node.target)}")
                _copy_attr(root, self, node.target)
        self.train()
        self.graph = train_graph
        if eval_graph._tracer_cls != train_graph._tracer_cls:
            raise TypeError(f"Train mode and eval mode should use the same tracer class. Instead got "
                            f"{eval_graph._tracer_cls} for eval vs {train_graph._tracer_cls} for train")
        self._tracer_cls = train_graph._tracer_cls
        self._graphmodule_cls_name = class_name
        self.meta = {}

    def train(self, mode=True):
        if mode and not self.training:
            self.graph = self.train_graph
        elif not mode and self.training:
            self.graph = self.eval_graph
        return super().train(mode=mode)


def _to_strdict(nodes):
    if isinstance(nodes, list):
        return {str(i): str(i) for i in nodes}
    return {str(k): str(v) for k, v in nodes.items()}


def _check_return_node_arguments(return_nodes, train_return_nodes, eval_return_nodes):
    if all(arg is None for arg in (return_nodes, train_return_nodes, eval_return_nodes)):
        raise ValueError("Either `return_nodes` or `train_return_nodes` and `eval_return_nodes` together, should be "
                         "specified")
    if (train_return_nodes is None) ^ (eval_return_nodes is None):
        raise ValueError("If any of `train_return_nodes` and `eval_return_nodes` are specified, then both should be "
                         "specified")
    if not ((return_nodes is None) ^ (train_return_nodes is None)):
        raise ValueError("If `train_return_nodes` and `eval_return_nodes` are specified, then both should be "
                         "specified")


def _rewrite_outputs(tracer, graph_module, wanted):
    """Replaces graph_module's output with a dict {output name: node} of the nodes wanted names; a query
    "layer1" names the last node inside layer1 (the deepest match by module path prefix)."""
    graph = graph_module.graph
    for node in reversed(list(graph.nodes)):
        if node.op == "output":
            graph.erase_node(node)
    nodes = list(graph.nodes)
    wanted = dict(wanted)
    output_nodes = OrderedDict()
    for node in reversed(nodes):
        qualname = tracer.node_to_qualname.get(node)
        if qualname is None:
            continue  # a node no module call made (a tensor constant)
        for query in wanted:
            depth = query.count(".")
            if ".".join(qualname.split(".")[:depth + 1]) == query:
                output_nodes[wanted.pop(query)] = node
                break
    output_nodes = OrderedDict(reversed(list(output_nodes.items())))
    with graph.inserting_after(nodes[-1]):
        graph.output(output_nodes)
    graph.eliminate_dead_code()
    graph_module.recompile()


def create_feature_extractor(model, return_nodes=None, train_return_nodes=None, eval_return_nodes=None,
                             tracer_kwargs=None, suppress_diff_warning=False, concrete_args=None):
    """A GraphModule computing model's forward up to the requested nodes and returning them as a dict.

    return_nodes: a list of node names (the output keys are the names) or a dict {node name: output key};
    or train_return_nodes and eval_return_nodes (both) when train and eval mode need different nodes.
    A name is a qualified node name from get_graph_node_names, or a module path prefix of one (its last
    node). tracer_kwargs: autowrap_modules, autowrap_functions, leaf_modules for the tracer."""
    tracer_kwargs = _set_default_tracer_kwargs(tracer_kwargs)
    is_training = model.training
    _check_return_node_arguments(return_nodes, train_return_nodes, eval_return_nodes)
    if train_return_nodes is None:
        train_return_nodes = _to_strdict(return_nodes)
        eval_return_nodes = dict(train_return_nodes)
    else:
        train_return_nodes, eval_return_nodes = _to_strdict(train_return_nodes), _to_strdict(eval_return_nodes)
    name = model.__class__.__name__ if isinstance(model, nn.Module) else model.__name__
    tracers, graphs = {}, {}
    for mode, wanted in (("train", train_return_nodes), ("eval", eval_return_nodes)):
        model.train(mode == "train")
        tracer = NodePathTracer(**tracer_kwargs)
        graph = tracer.trace(model, concrete_args=concrete_args)
        graph_module = fx.GraphModule(tracer.root, graph, name)
        available = list(tracer.node_to_qualname.values())
        if len(set(available)) != len(available):
            raise ValueError("There are duplicate nodes! Please raise an issue https://github.com/pytorch/vision/issues")
        for query in wanted:
            if not any(re.match(rf"^{re.escape(query)}(\.|$)", n) is not None for n in available):
                raise ValueError(f"node: '{query}' is not present in model. Hint: use `get_graph_node_names` to make "
                                 "sure the `return_nodes` you specified are present. It may even be that you need to "
                                 "specify `train_return_nodes` and `eval_return_nodes` separately.")
        _rewrite_outputs(tracer, graph_module, wanted)
        tracers[mode], graphs[mode] = tracer, graph_module.graph
    if not suppress_diff_warning:
        _warn_graph_differences(tracers["train"], tracers["eval"])
    extractor = DualGraphModule(model, graphs["train"], graphs["eval"], class_name=name)
    model.train(is_training)
    extractor.train(is_training)
    return extractor
