"""Temporary patches of module attributes and function globals made while tracing, all undone on exit
(and `ember.fx.wrap`'s registry of functions that stay leaves)."""
from __future__ import annotations

import builtins
import functools
import sys

__all__ = ["Patcher", "wrap", "wrapped_fns_to_patch"]

# (globals dict, name) pairs registered by wrap(); patched in every trace
wrapped_fns_to_patch: dict[tuple[int, str], dict] = {}
_MISSING = object()


class Patcher:
    """Records each patch's old value so exit restores everything (in reverse order)."""

    def __init__(self):
        self._undo: list = []
        self.visited: set[int] = set()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        while self._undo:
            self._undo.pop()()
        return False

    def patch(self, frame_dict: dict, name: str, new_fn) -> None:
        old = frame_dict.get(name, _MISSING)

        def undo():
            if old is _MISSING:
                frame_dict.pop(name, None)
            else:
                frame_dict[name] = old
        frame_dict[name] = new_fn
        self._undo.append(undo)

    def patch_method(self, cls: type, name: str, new_fn) -> None:
        old = cls.__dict__[name]
        setattr(cls, name, new_fn)
        self._undo.append(lambda: setattr(cls, name, old))


def wrap(fn_or_name):
    """At module scope, marks a global function (or its name) as a leaf: traced calls to it with Proxy
    arguments are recorded as one call_function node instead of being traced through."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    if callable(fn_or_name):
        if isinstance(fn_or_name, str):
            raise AssertionError("unreachable")
        fn_name = fn_or_name.__name__
    else:
        fn_name = fn_or_name
    caller = sys._getframe(1)
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    f_globals = caller.f_globals
    wrapped_fns_to_patch[(id(f_globals), fn_name)] = f_globals
    return fn_or_name


def make_leaf_wrapper(orig_fn, tracer_of):
    """A stand-in for orig_fn: with a Proxy among its arguments, a call_function node of orig_fn."""
    from .node import map_aggregate
    from .proxy import Proxy

    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        found = []

        def check(a):
            if isinstance(a, Proxy) and not found:
                found.append(a)
        map_aggregate(args, check)
        map_aggregate(kwargs, check)
        if found:
            return found[0].tracer.create_proxy("call_function", orig_fn, args, kwargs)
        return orig_fn(*args, **kwargs)
    wrapped._fx_leaf_wrapper = True
    return wrapped


def patch_wrapped_functions(patcher: Patcher) -> None:
    for (_, name), frame_dict in list(wrapped_fns_to_patch.items()):
        orig = frame_dict.get(name, getattr(builtins, name, None))
        if orig is None or getattr(orig, "_fx_leaf_wrapper", False):
            continue
        patcher.patch(frame_dict, name, make_leaf_wrapper(orig, None))


def autowrap_check(patcher: Patcher, frame_dict: dict, function_ids: set[int]) -> None:
    """Patches the names in frame_dict whose values are autowrapped functions (math.sqrt ...)."""
    if id(frame_dict) in patcher.visited:
        return
    patcher.visited.add(id(frame_dict))
    for name, value in list(frame_dict.items()):
        if not name.startswith("_") and callable(value) and id(value) in function_ids:
            patcher.patch(frame_dict, name, make_leaf_wrapper(value, None))
