"""`__prepare_scriptable__`, as torch.jit.script honours it: a module (or any submodule, or a module held in a
plain list attribute) defining it is replaced by what it returns before compiling, so a class whose forward
is outside the script language can name a scriptable equivalent (transforms.v2's hand their v1 transforms)."""
from __future__ import annotations


def prepare_scriptable(obj, memo: dict | None = None):
    import ember.nn

    memo = {} if memo is None else memo
    if id(obj) in memo:
        return memo[id(obj)]
    prepare = getattr(obj, "__prepare_scriptable__", None)
    new = prepare() if callable(prepare) else obj
    memo[id(obj)] = new
    if isinstance(new, ember.nn.Module):
        for name, sub in list(new._modules.items()):
            if sub is not None:
                new._modules[name] = prepare_scriptable(sub, memo)
        for name, value in list(vars(new).items()):
            if isinstance(value, list) and value and all(isinstance(m, ember.nn.Module) for m in value):
                setattr(new, name, [prepare_scriptable(m, memo) for m in value])
    return new
