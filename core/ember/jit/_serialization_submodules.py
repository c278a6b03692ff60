"""Submodules' own forwards in ember.jit archives (version 3): each scripted submodule whose forward compiles
on its own is saved with its graph, so the loaded module's submodules can be called as the saved ones were
(`loaded[0](x)`, `loaded.encoder(x)`), as PyTorch's loaded modules' can. FORMAT.md describes the entries."""
from __future__ import annotations

from .. import _C
from . import _python_ops
from ._errors import FrontendError


def _compiled_submodules(obj):
    """(path, compiled parts) of each submodule of obj whose forward compiles by itself (the others, a traced
    module's for one, are left out: calling them after loading raises as calling them before does)."""
    from ._script_module import ScriptModule

    out = []
    for path, sub in obj.named_modules():
        if not path or not isinstance(sub, ScriptModule) or sub.__dict__.get("_frozen"):
            continue
        try:
            parts = sub._g, sub._attr_inputs, sub._sig, sub.return_type  # compiles it if not compiled yet
            text, consts = parts[0].saved_text()
            _python_ops.check_exportable(text)
        except (FrontendError, RuntimeError):  # not compilable, or not exportable, by itself: no entry
            continue
        out.append((path, parts, text, consts))
    return out


def describe_submodules(obj, paths, tensors, constants, encode_attr_inputs, defaults_of):
    """meta.json's submodules entries and their graph texts; their tensor constants join constants."""
    entries, texts = [], {}
    for path, (_, attr_inputs, sig, return_type), text, consts in _compiled_submodules(obj):
        try:
            attrs = encode_attr_inputs(attr_inputs, paths, tensors)
        except RuntimeError:  # it reads something outside the saved tree
            continue
        entry = {"path": path, "params": list(sig.parameters), "return_type": str(return_type),
                 "attr_inputs": attrs, "constants": list(range(len(constants), len(constants) + len(consts)))}
        if defaults_of(sig):
            entry["defaults"] = defaults_of(sig)
        constants.extend(consts)
        entries.append(entry)
        texts[path] = text
    return entries, texts


def attach_submodules(root, meta, records, tensors, by_path, rebuild_attrs, signature_of, parse_type) -> None:
    """Gives each loaded submodule listed in meta its saved forward."""
    for entry in meta.get("submodules", []):
        graph = _C._jit.parse_graph(records[graph_record(entry["path"])].decode(),
                                    [tensors[k] for k in entry["constants"]], _python_ops.BUILTIN_PYTHON_OPS)
        rebuild_attrs(entry["attr_inputs"], by_path, dict(enumerate(tensors)))
        sub = root.get_submodule(entry["path"])
        sub.__dict__.update({"_g": graph, "_attr_inputs": [(by_path[a["module"]], a["name"])
                                                           for a in entry["attr_inputs"]],
                             "_sig": signature_of(entry["params"], entry.get("defaults", {})),
                             "return_type": parse_type(entry["return_type"]), "_methods": {}})


def graph_record(path: str) -> str:
    return f"code/submodules/{path}.graph"
