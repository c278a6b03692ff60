"""with_modules: each nn.Module call becomes a range "nn.Module: <Class>_<n>" on the timeline (n counts
instances of the class in the order they are first called), through the global forward hooks that
exist only while a profile records."""
from __future__ import annotations

import weakref
from collections import defaultdict

from ember.nn.modules import module as _module

from ember import _profiler_hooks


class ModuleRanges:
    def __init__(self):
        self._names = weakref.WeakKeyDictionary()
        self._counts = defaultdict(int)
        self._open: dict = defaultdict(list)
        self._pre = _module.register_module_forward_pre_hook(self._enter)
        self._post = _module.register_module_forward_hook(self._exit)

    def _name(self, mod):
        name = self._names.get(mod)
        if name is None:
            cls = type(mod).__name__
            name = f"nn.Module: {cls}_{self._counts[cls]}"
            self._counts[cls] += 1
            self._names[mod] = name
        return name

    def _enter(self, mod, args):
        r = _profiler_hooks.Range(self._name(mod))
        r.__enter__()
        self._open[id(mod)].append(r)

    def _exit(self, mod, args, output):
        ranges = self._open.get(id(mod))
        if ranges:
            ranges.pop().__exit__(None, None, None)

    def remove(self):
        self._pre.remove()
        self._post.remove()
        for ranges in self._open.values():
            for r in ranges:
                r.__exit__(None, None, None)
        self._open.clear()
