"""GraphModule: an nn.Module whose forward is Python generated from a Graph (torch.fx.GraphModule):
recompile, the graph setter, submodule editing, deepcopy, pickling (ember.save/load) and to_folder."""
from __future__ import annotations

import copy
from typing import Any

from ..nn.modules.module import Module
from ._code_loading import _forward_from_src, _import_block
from .graph import Graph, PythonCode

__all__ = ["GraphModule", "reduce_graph_module"]

def reduce_graph_module(body: dict, import_block: str) -> GraphModule:
    """Rebuilds a pickled GraphModule: the generated code is compiled again and retraced (every
    submodule a leaf) into a graph."""
    forward = _forward_from_src(import_block + body["_code"], {})
    return _deserialize_graph_module(forward, body)


# ember.fx.Tracer, registered by _symbolic_trace (which imports this module) for retracing on unpickling
_TRACER_CLASS: list = []


def _set_tracer_class(cls) -> None:
    _TRACER_CLASS[:] = [cls]


def _deserialize_graph_module(forward, body: dict) -> GraphModule:
    Tracer = _TRACER_CLASS[0]

    class CodeOnlyModule(Module):
        def __init__(self, body):
            super().__init__()
            self.__dict__ = body

    CodeOnlyModule.forward = forward

    class KeepModules(Tracer):
        def is_leaf_module(self, m, module_qualified_name):
            return True

    com = CodeOnlyModule(body)
    graph = KeepModules().trace(com)
    gm = GraphModule(com, graph, class_name=body.get("_graphmodule_cls_name", "GraphModule"))
    for k, v in body.items():
        if not hasattr(gm, k):
            setattr(gm, k, v)
    return gm


def _copy_attr(from_module: Module, to_module: Module, target: str) -> None:
    """to_module.<target> = from_module.<target>, creating empty Modules on the way."""
    import ember
    from ..nn.parameter import Parameter
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return  # already installed (a whole module copied earlier)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    # a tensor that is not a parameter is a buffer of the new module
    if isinstance(orig, ember.Tensor) and not isinstance(orig, Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module: Module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    import ember
    from ..nn.parameter import Parameter
    if isinstance(from_obj, ember.Tensor) and not isinstance(from_obj, Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


class _ChildDict(dict):
    """A GraphModule's `_modules`. The children its generated code calls are also class attributes of
    its own class (a plain attribute read instead of a Module.__getattr__ miss and its exception per
    call); every change of the dict refreshes them, so reads always see the current children."""

    __slots__ = ("_cls", "_tracked")

    def _refresh(self) -> None:
        cls = getattr(self, "_cls", None)
        if cls is None:
            return
        for name in self._tracked:
            value = dict.get(self, name)
            if value is not None:
                setattr(cls, name, value)
            elif name in vars(cls):
                delattr(cls, name)

    def track(self, cls: type, names: set[str]) -> None:
        old = getattr(self, "_tracked", set())
        self._cls = cls
        self._tracked = {n for n in names if not hasattr(Module, n)}
        for name in old - self._tracked:
            if name in vars(cls):
                delattr(cls, name)
        self._refresh()

    def __reduce__(self):
        return (dict, (dict(self),))  # copies and pickles are plain dicts (GraphModule() makes its own)

    def _mutating(name):
        def method(self, *args, **kwargs):
            result = getattr(dict, name)(self, *args, **kwargs)
            self._refresh()
            return result
        method.__name__ = name
        return method

    for _name in ("__setitem__", "__delitem__", "__ior__", "pop", "popitem", "clear", "update", "setdefault"):
        locals()[_name] = _mutating(_name)
    del _name, _mutating


class GraphModule(Module):
    """A Module made from a Graph and the module (or dict) holding the attributes its nodes name."""

    def __new__(cls, *args, **kwargs):
        # each instance gets its own class, so recompile() can set `forward` on the class (as Python
        # looks special methods up there) without touching other GraphModules
        class GraphModuleImpl(cls):
            pass
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph: Graph, class_name: str = "GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        self.__class__.__qualname__ = class_name
        if isinstance(root, Module):
            self.training = getattr(root, "training", True)
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = []
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but that target was not "
                                           "provided in ``root``!")
                    targets.append(node.target)
            for target in sorted(targets, key=lambda t: t.count(".")):
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")
        self.graph = graph
        self._tracer_cls = graph._tracer_cls
        self._graphmodule_cls_name = class_name
        self.meta: dict[str, Any] = {}

    @property
    def graph(self) -> Graph:
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph, got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self) -> PythonCode:
        """Regenerates `code` and `forward` from the graph (call after changing the graph)."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        cls = type(self)
        cls.forward = _forward_from_src(self._code, python_code.globals)
        if not isinstance(self._modules, _ChildDict):
            self.__dict__["_modules"] = _ChildDict(self._modules)
        self._modules.track(cls, {n.target.split(".")[0] for n in self._graph.nodes if n.op == "call_module"})
        return python_code

    # ---- submodules -------------------------------------------------------------------------
    def add_submodule(self, target: str, m: Module) -> bool:
        """Installs m at the dotted path target (making empty parents); False if a parent on the path
        is not a Module."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            submod = getattr(mod, item, None)
            if submod is None:
                submod = Module()
                mod.add_module(item, submod)
            if not isinstance(submod, Module):
                return False
            mod = submod
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        """Removes the submodule at target; False if there is none."""
        atoms = target.split(".")
        path, target_submod = atoms[:-1], atoms[-1]
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, target_submod) or not isinstance(getattr(mod, target_submod), Module):
            return False
        delattr(mod, target_submod)
        return True

    def delete_all_unused_submodules(self) -> None:
        """Removes the submodules no call_module or get_attr node refers to."""
        used: set[str] = set()
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                fullpath = node.target.split(".")
                for i in range(1, len(fullpath) + 1):
                    used.add(".".join(fullpath[:i]))
                if node.op == "call_module":
                    for sub, _ in self.get_submodule(node.target).named_modules():
                        if sub:
                            used.add(f"{node.target}.{sub}")
        to_delete = [name for name, _ in self.named_modules() if name and name not in used]
        for name in to_delete:
            self.delete_submodule(name)

    # ---- copying and saving -----------------------------------------------------------------
    def __reduce__(self):
        body = self.__dict__.copy()
        python_code = self.recompile()
        del body["_graph"]
        body.pop("_tracer_cls", None)
        return (reduce_graph_module, (body, _import_block(python_code.globals)))

    def __deepcopy__(self, memo):
        res = type(self).__new__(type(self))
        memo[id(self)] = res
        state = copy.deepcopy(self.__dict__, memo)
        fake_mod = Module()
        fake_mod.__dict__ = state
        GraphModule.__init__(res, fake_mod, state["_graph"], self._graphmodule_cls_name)
        for attr in ("_forward_hooks", "_forward_pre_hooks", "meta"):
            if attr in state:
                object.__setattr__(res, attr, state[attr])
        return res

    def __copy__(self):
        res = GraphModule(self, self.graph, self._graphmodule_cls_name)
        res.meta = getattr(self, "meta", {})
        return res

    def to_folder(self, folder, module_name: str = "FxModule") -> None:
        """Writes the module as an importable package into folder: module.py (a Module class with the
        generated forward), state_dict.pt and a .pt file for each submodule that cannot be written as a
        constructor call."""
        from ._to_folder import write_folder
        write_folder(self, folder, module_name, self.graph.python_code(root_module="self"))

    def print_readable(self, print_output: bool = True) -> str:
        body = "\n".join("    " + line for line in self._code.strip("\n").splitlines())
        out = f"class {self._graphmodule_cls_name}(ember.nn.Module):\n{body}\n"
        if print_output:
            print(out)
        return out

    def __str__(self) -> str:
        orig_str = super().__str__()
        reminder = "# To see more debug info, please use `graph_module.print_readable()`"
        return "\n".join([orig_str, self._code, reminder])
