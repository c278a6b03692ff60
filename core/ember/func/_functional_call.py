"""functional_call: a module called with some of its parameters and buffers replaced by given
tensors (for the call only), so ember.func's transforms can differentiate with respect to them."""
import contextlib

from .. import _C


def _owner(module, name):
    *path, attr = name.split(".")
    for p in path:
        module = getattr(module, p)
    return module, attr


@contextlib.contextmanager
def _swapped(module, tensors):
    saved = []
    try:
        for name, value in tensors.items():
            owner, attr = _owner(module, name)
            for slot in ("_parameters", "_buffers"):
                table = owner.__dict__.get(slot, {})
                if attr in table:
                    saved.append((table, attr, table[attr]))
                    table[attr] = value
                    break
            else:
                saved.append((owner.__dict__, attr, owner.__dict__.get(attr, _missing)))
                owner.__dict__[attr] = value
        yield
    finally:
        for table, attr, old in reversed(saved):
            if old is _missing:
                del table[attr]
            else:
                table[attr] = old


_missing = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named parameters/buffers of the dict (or tuple of dicts)
    standing in for the module's own."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        dicts = (dicts,)
    elif not (isinstance(dicts, (tuple, list)) and all(isinstance(d, dict) for d in dicts)):
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    merged = {}
    for d in dicts:
        for k, v in d.items():
            if k in merged:
                raise ValueError(f"{k} appeared in multiple dictionaries; behavior of functional call is ambiguous")
            merged[k] = v
    if strict:
        names = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing = sorted(names - set(merged))
        unexpected = sorted(set(merged) - names)
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                parts.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError("Error(s) in reparametrizing for " + type(module).__name__ + ":\n\t" +
                               "\n\t".join(parts))
    if tie_weights:
        # a name the dict leaves out whose tensor is tied to one it gives follows the given one
        by_id = {}
        for n, t in list(module.named_parameters(remove_duplicate=False)) + \
                list(module.named_buffers(remove_duplicate=False)):
            by_id.setdefault(id(t), []).append(n)
        for names in by_id.values():
            given = [n for n in names if n in merged]
            for n in names:
                if given and n not in merged:
                    merged[n] = merged[given[0]]
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    for v in merged.values():
        if not isinstance(v, _C.TensorBase) and v is not None:
            raise TypeError(f"functional_call: expected Tensors as parameter and buffer values, got {type(v)}")
    with _swapped(module, merged):
        return module(*args, **(kwargs or {}))
