"""Symbolic tracing (torch.fx.Tracer / symbolic_trace): run a module's forward on Proxies with
nn.Module.__call__ and __getattr__ patched, so submodule calls become call_module nodes (leaves) or are
traced through, parameters become get_attr nodes, and ember functions record themselves."""
from __future__ import annotations

import inspect
import math
import types
import warnings
from typing import Any, Callable

from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ._patching import Patcher, autowrap_check, patch_wrapped_functions, wrap
from .graph import Graph
from .graph_module import GraphModule, _set_tracer_class
from .proxy import ParameterProxy, Proxy, TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "PHBase"]


class PHBase:
    """A placeholder marker in concrete_args: the argument stays an input."""

    def __repr__(self):
        return "PH"


PH = PHBase()


def _assert(condition, message: str = "") -> None:
    """Checks a specialised argument's value at run time (torch._assert's job in PyTorch's graphs)."""
    if not condition:
        raise AssertionError(message)


def _assert_is_none(value, msg: str) -> None:
    if value is not None:
        raise AssertionError(msg)


class Tracer(TracerBase):
    """Records a module's forward (or a function) as a Graph. Override is_leaf_module, create_proxy,
    create_arg, call_module, getattr to change what is recorded."""

    def __init__(self, autowrap_modules: tuple = (math,), autowrap_functions: tuple = (),
                 param_shapes_constant: bool = False) -> None:
        super().__init__()
        self._autowrap_function_ids = {id(value) for m in autowrap_modules for name, value in m.__dict__.items()
                                       if not name.startswith("_") and callable(value)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_modules = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict[int, str] | None = None
        self.root: Module | None = None
        self.tensor_attrs: dict[int, str] = {}

    # ---- what becomes a node ----------------------------------------------------------------
    def create_arg(self, a: Any):
        """Parameters, buffers and tensor attributes of the root become get_attr nodes; other tensors
        are stored on the root as _tensor_constantN."""
        import ember
        if isinstance(a, Parameter):
            for n_, p_ in self.root.named_parameters():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Module):
            for n_, p_ in self.root.named_modules():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
            raise NameError("module is not installed as a submodule")
        if isinstance(a, ember.Tensor):
            for n_, p_ in self.root.named_buffers():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                qualname = f"_tensor_constant{i}"
                setattr(self.root, qualname, a)
                self.tensor_attrs[id(a)] = qualname
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """ember.nn's own modules are leaves (not Sequential, which is traced through)."""
        from ..nn import Sequential
        module = type(m).__module__ or ""
        return (module.startswith("ember.nn") or module.startswith("ember.ao.nn")) and not isinstance(m, Sequential)

    def path_of_module(self, mod: Module) -> str:
        if self.submodule_paths:
            path = self.submodule_paths.get(id(mod))
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m: Module, forward: Callable, args: tuple, kwargs: dict):
        """A call_module node for a leaf; otherwise forward traced through."""
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict):
        """A module attribute read while tracing: parameters (and buffers with proxy_buffer_attributes)
        become get_attr proxies, one per attribute."""
        import ember

        def maybe_proxy(collection, cache):
            for n, p in collection:
                if attr_val is p:
                    if n not in cache:
                        if self.param_shapes_constant and isinstance(attr_val, Parameter):
                            node = self.create_proxy("get_attr", n, (), {}).node
                            cache[n] = ParameterProxy(self, node, n, attr_val)
                        else:
                            cache[n] = self.create_proxy("get_attr", n, (), {})
                    return cache[n]
            return None
        if isinstance(attr_val, Parameter):
            found = maybe_proxy(self.root.named_parameters(), parameter_proxy_cache)
            if found is not None:
                return found
        if self.proxy_buffer_attributes and isinstance(attr_val, ember.Tensor):
            found = maybe_proxy(self.root.named_buffers(), parameter_proxy_cache)
            if found is not None:
                return found
        return attr_val

    # ---- inputs -----------------------------------------------------------------------------
    def create_args_for_root(self, root_fn: Callable, is_module: bool, concrete_args=None):
        sig = inspect.signature(root_fn)
        params = list(sig.parameters.values())
        fn_args: list = []
        if is_module:
            params = params[1:]
            fn_args.append(self.root)
        if concrete_args is not None and not isinstance(concrete_args, dict):
            concrete_args = {p.name: v for p, v in zip(params, concrete_args)}
        concrete_args = concrete_args or {}
        unknown = set(concrete_args) - {p.name for p in params}
        if unknown:
            raise RuntimeError(f"Tracing expected {len(params)} arguments but got {len(concrete_args)} concrete "
                               f"arguments: unknown names {sorted(unknown)}")
        for p in params:
            if p.kind == inspect.Parameter.VAR_POSITIONAL:
                fn_args.append(self.create_proxy("placeholder", f"*{p.name}", (), {}))
            elif p.kind == inspect.Parameter.VAR_KEYWORD:
                fn_args.append(self.create_proxy("placeholder", f"**{p.name}", (), {}))
            elif p.name in concrete_args:
                fn_args.append(self._specialised_placeholder(p, concrete_args[p.name]))
            else:
                default = () if p.default is inspect.Parameter.empty else (p.default,)
                fn_args.append(self.create_proxy("placeholder", p.name, default, {}, type_expr=self._annotation(p)))
        return root_fn, fn_args

    @staticmethod
    def _annotation(p: inspect.Parameter):
        return None if p.annotation is inspect.Parameter.empty else p.annotation

    def _specialised_placeholder(self, p: inspect.Parameter, value):
        """The input stays in the signature, but tracing sees `value`; the graph checks callers pass it."""
        import ember
        default = () if p.default is inspect.Parameter.empty else (p.default,)
        out = self.create_proxy("placeholder", f"{p.name}_1", default, {})
        if isinstance(value, PHBase):
            return out
        if value is None:
            msg = f"{p.name} has been specialized to have value None but got another value"
            self.create_proxy("call_function", _assert_is_none, (out, msg), {})
        elif isinstance(value, (bool, int, float, str, complex)) and not isinstance(value, ember.Tensor):
            msg = f"{p.name} has been specialized to have value {value} but got another value"
            self.create_proxy("call_function", _assert, (out == value, msg), {})
        else:
            warnings.warn(f"Was not able to add assertion to guarantee correct input {p.name} to specialized "
                          "function. It is up to the user to make sure that your inputs match the inputs you "
                          "specialized the function with.")
        return value

    # ---- the trace --------------------------------------------------------------------------
    def trace(self, root, concrete_args: dict | tuple | None = None) -> Graph:
        """The Graph of root's forward (root a Module) or of the function root."""
        if isinstance(root, Module):
            self.root = root
            fn = getattr(type(root), self.traced_func_name)
            self.submodule_paths = {id(mod): name for name, mod in root.named_modules()}
        else:
            if not isinstance(root, types.FunctionType):
                raise AssertionError(f"Expected FunctionType, got {type(root)}")  # PyTorch's check
            self.root = Module()
            fn = root
        self.graph = Graph(tracer_cls=getattr(self, "__class__", None))
        self.tensor_attrs = {}
        self._collect_tensor_attrs(self.root, [])
        fn_globals = fn.__globals__
        fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
        parameter_proxy_cache: dict[str, Proxy] = {}
        orig_getattr, orig_call = Module.__getattr__, Module.__call__
        tracer = self

        def module_getattr_wrapper(mod, attr):
            attr_val = orig_getattr(mod, attr)
            return tracer.getattr(attr, attr_val, parameter_proxy_cache)

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return orig_call(mod, *args, **kwargs)
            autowrap_check(patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}),
                           tracer._autowrap_function_ids)
            return tracer.call_module(mod, forward, args, kwargs)

        try:
            with Patcher() as patcher:
                patcher.patch_method(Module, "__getattr__", module_getattr_wrapper)
                patcher.patch_method(Module, "__call__", module_call_wrapper)
                patch_wrapped_functions(patcher)
                autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                for module in self._autowrap_modules:
                    autowrap_check(patcher, module.__dict__, self._autowrap_function_ids)
                result = fn(*args)
                self.create_node("output", "output", (self.create_arg(result),), {},
                                 type_expr=fn.__annotations__.get("return", None))
        finally:
            self.submodule_paths = None
        return self.graph

    def _collect_tensor_attrs(self, m: Module, prefix_atoms: list[str]) -> None:
        import ember
        for k, v in m.__dict__.items():
            if isinstance(v, ember.Tensor):
                self.tensor_attrs[id(v)] = ".".join(prefix_atoms + [k])
        for k, v in m.named_children():
            self._collect_tensor_attrs(v, prefix_atoms + [k])


def symbolic_trace(root, concrete_args: dict | None = None) -> GraphModule:
    """A GraphModule of root's (a Module's or a function's) traced forward."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)



_set_tracer_class(Tracer)
