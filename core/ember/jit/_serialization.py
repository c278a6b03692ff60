"""ember.jit.save / ember.jit.load (and ScriptModule.save): a scripted or traced function or module as
one zip archive -- its graph as IR text, its tensors through ember.save's storage writer (views of one
storage saved once and loaded sharing it), its module tree as JSON, and any _extra_files. Loading runs
no code of the model: the graph is parsed back (ember._C._jit.parse_graph) and the module tree is
rebuilt from plain nn.Modules. The layout is documented in FORMAT.md."""
from __future__ import annotations

import inspect
import io
import json
import sys
import zipfile

import ember

from .. import _C
from .._serialization_archive import FORMAT_VERSION, ArchiveWriter
from ..serialization import _copy_storage_out, _opened, _Pickler
from . import _python_ops
from . import _types as T
from ._script_function import ScriptFunction
from . import _serialization_objects as _objects
from . import _serialization_submodules as _submodules
from ._script_module import RecursiveScriptModule, ScriptMethod, ScriptModule
from ._script_module_tree import make

JIT_FORMAT_VERSION = 3  # 2: a module's exported methods (meta.json methods, code/methods/); 3: submodules' forwards


def _tensor_entry(t, key):
    return {"storage": key, "dtype": str(t.dtype).replace("ember.", ""), "offset": t.storage_offset(),
            "sizes": list(t.shape), "strides": list(t.stride()), "requires_grad": bool(t.requires_grad),
            "device": t.device.type}


def _module_tree(root):
    """The module tree as JSON (paths, training flags, parameter and buffer tensor indices) and the tensors
    it holds, and each module's path by identity."""
    tensors, modules, paths = [], [], {}
    for path, m in root.named_modules(remove_duplicate=False):
        if id(m) in paths:
            raise RuntimeError(f"ember.jit.save: module {path!r} is also {paths[id(m)]!r}; shared submodules are not "
                               "supported")
        paths[id(m)] = path
        if isinstance(m, ScriptModule):  # a compiled submodule: graphs inlined from it read its eager module
            paths.setdefault(id(m._module), path)
        name = m.original_name if isinstance(m, ScriptModule) else type(m).__name__
        entry = {"path": path, "type": name, "training": bool(m.training), "parameters": {},
                 "buffers": {}}
        for kind, table in (("parameters", m._parameters), ("buffers", m._buffers)):
            for name, t in table.items():
                if t is not None:
                    entry[kind][name] = len(tensors)
                    tensors.append(t)
        modules.append(entry)
    return modules, tensors, paths


def _tensor_indices(values, tensors):
    """Each tensor's index in tensors (which gains the ones not saved yet): list attributes holding a module's
    parameters (an RNN's _flat_weights) name the parameters' entries."""
    known = {id(t): k for k, t in enumerate(tensors)}
    out = []
    for t in values:
        if id(t) not in known:
            known[id(t)] = len(tensors)
            tensors.append(t)
        out.append(known[id(t)])
    return out


def _encode_attr_inputs(attr_inputs, paths, tensors):
    """meta.json's attr_inputs entries of a module graph's attribute inputs (tensors joins the tensor table)."""
    attrs = []
    for m, name in attr_inputs:
        if id(m) not in paths:
            raise RuntimeError(f"ember.jit.save: the graph reads {name} of a module outside the saved one")
        value = getattr(m, name)
        if isinstance(value, _C.TensorBase):
            entry = {"module": paths[id(m)], "name": name, "kind": "tensor"}
            if name not in m._parameters and name not in m._buffers:  # a plain attribute (weight_norm's weight)
                entry["tensor"] = _tensor_indices([value], tensors)[0]
            attrs.append(entry)
        elif isinstance(value, (bool, int, float)):
            attrs.append({"module": paths[id(m)], "name": name, "kind": "value", "value": value})
        elif isinstance(value, list) and all(isinstance(t, _C.TensorBase) for t in value):
            attrs.append({"module": paths[id(m)], "name": name, "kind": "tensor_list",
                          "tensors": _tensor_indices(value, tensors)})  # an RNN's _flat_weights
        elif ScriptModule._object_type(value) is not None:  # a scripted or C++ class's object
            t = ScriptModule._object_type(value)
            attrs.append({"module": paths[id(m)], "name": name, "kind": "object", "type": str(t),
                          "value": _objects.encode(value, t)})
        else:
            raise RuntimeError(f"ember.jit.save: attribute {name} is a {type(value).__name__}, which cannot be "
                               "saved")
    return attrs


def _defaults(sig):
    """A signature's defaults that meta.json can hold: calls of the loaded graph may leave them out too."""
    return {n: p.default for n, p in sig.parameters.items()
            if p.default is not inspect.Parameter.empty and (p.default is None or
                                                             isinstance(p.default, (bool, int, float, str)))}


def _describe_methods(obj, paths, tensors, constants):
    """meta.json's methods entries and graph texts of a module's @ember.jit.export'ed methods; their tensor
    constants join constants (whose tensor-table indices follow the module's tensors)."""
    entries, texts = [], {}
    for name, method in getattr(obj, "_methods", {}).items():
        text, consts = method._g.saved_text()
        _python_ops.check_exportable(text)
        entry = {"name": name, "params": list(method._sig.parameters), "return_type": str(method.return_type),
                 "attr_inputs": _encode_attr_inputs(method._attr_inputs, paths, tensors),
                 "constants": list(range(len(constants), len(constants) + len(consts)))}
        if _defaults(method._sig):
            entry["defaults"] = _defaults(method._sig)
        constants.extend(consts)
        entries.append(entry)
        texts[name] = text
    return entries, texts


def _describe(obj):
    """(meta JSON, tensors) for a ScriptFunction or ScriptModule."""
    text, constants = obj._g.saved_text()
    _python_ops.check_exportable(text)
    if isinstance(obj, ScriptFunction):
        meta = {"kind": "function", "name": obj.__name__, "params": list(obj._sig.parameters),
                "param_types": [str(t) for t in obj.param_types], "return_type": str(obj.return_type)}
        tensors = []
    else:
        modules, tensors, paths = _module_tree(obj._module)
        attrs = _encode_attr_inputs(obj._attr_inputs, paths, tensors)
        meta = {"kind": "module", "name": "forward", "type": type(obj._module).__name__,
                "params": list(obj._sig.parameters), "return_type": str(obj.return_type), "modules": modules,
                "attr_inputs": attrs}
    constants = list(constants)
    methods, method_texts = ([], {}) if isinstance(obj, ScriptFunction) else \
        _describe_methods(obj, paths, tensors, constants)
    if methods:
        meta["methods"] = methods
    submodules, submodule_texts = ([], {}) if isinstance(obj, ScriptFunction) else \
        _submodules.describe_submodules(obj, paths, tensors, constants, _encode_attr_inputs, _defaults)
    if submodules:
        meta["submodules"] = submodules
    if _defaults(obj._sig):  # forward(x, mask_value: float = 0.0)
        meta["defaults"] = _defaults(obj._sig)
    attr_types = [a["type"] for entry in [meta] + methods + submodules for a in entry.get("attr_inputs", [])
                  if "type" in a]
    classes = _objects.classes_of([text] + list(method_texts.values()) + list(submodule_texts.values()) +
                                  attr_types)
    if classes:
        meta["classes"] = classes
    meta["format"], meta["version"] = "ember.jit", JIT_FORMAT_VERSION
    base = len(tensors)  # the constants follow the module's tensors in the table
    n_forward = len(constants) - sum(len(m["constants"]) for m in methods + submodules)
    meta["constants"] = list(range(base, base + n_forward))
    for m in methods + submodules:
        m["constants"] = [base + k for k in m["constants"]]
    graphs = {**{f"code/methods/{n}.graph": t for n, t in method_texts.items()},
              **{_submodules.graph_record(p): t for p, t in submodule_texts.items()}}
    return meta, text, graphs, tensors + [c.detach() for c in constants]


def save(m, f, _extra_files=None):
    """Saves a ScriptFunction or ScriptModule (scripted or traced) to f, a path or a writable binary file."""
    if not isinstance(m, (ScriptFunction, ScriptModule)):
        raise TypeError(f"ember.jit.save: expected a ScriptModule or ScriptFunction, got {type(m).__name__}")
    meta, text, graphs, tensors = _describe(m)
    data = io.BytesIO()
    pickler = _Pickler(data, 2)
    pickler.dump([t.detach() if isinstance(t, ember.nn.Parameter) else t for t in tensors])
    meta["tensors"] = [_tensor_entry(t, pickler.storages[_C._storage_key(t)].key) for t in tensors]
    extra = {}
    for name, content in (_extra_files or {}).items():
        extra[name] = content.encode() if isinstance(content, str) else bytes(content)
    with _opened(f, "wb", "ember.jit.save") as fh:
        w = ArchiveWriter(fh)
        w.write_record("data.pkl", data.getbuffer())
        w.write_record("ember_format_version", f"{FORMAT_VERSION}\n".encode())
        w.write_record("byteorder", sys.byteorder.encode())
        w.write_record(".storage_alignment", str(w.ALIGN).encode())
        w.write_record("code/forward.graph", text.encode())
        for record, graph_text in graphs.items():  # exported methods' and submodules' graphs
            w.write_record(record, graph_text.encode())
        w.write_record("code/meta.json", json.dumps(meta, indent=1).encode())
        for name, content in extra.items():
            w.write_record(f"extra/{name}", content)
        for ref in pickler.storages.values():
            if ref.location == "cpu":
                w.write_stream(f"data/{ref.key}", ref.nbytes, lambda write, ref=ref: _copy_storage_out(ref, write))
        w.close()
        if callable(getattr(fh, "flush", None)):
            fh.flush()


def _parse_type(text: str) -> T.JitType:
    text = text.strip()
    simple = {"Tensor": T.TENSOR, "int": T.INT, "float": T.FLOAT, "bool": T.BOOL, "str": T.STR, "NoneType": T.NONE}
    if text in simple:
        return simple[text]
    if text == "Any":
        return T.ANY
    if text.startswith("__torch__.") and "[" not in text:
        return T.JitType("Class", name=text)
    head, _, rest = text.partition("[")
    if head not in ("List", "Tuple", "Optional", "Dict", "Union") or not rest.endswith("]"):
        raise RuntimeError(f"ember.jit.load: unknown type {text!r} in the archive")
    elems = [_parse_type(p) for p in T.split_type_args(rest[:-1])]
    return {"List": lambda: T.list_of(elems[0]), "Tuple": lambda: T.tuple_of(elems),
            "Optional": lambda: T.optional_of(elems[0]), "Dict": lambda: T.dict_of(*elems),
            "Union": lambda: T.union_of(elems)}[head]()


def _read_records(fh, names):
    zf = zipfile.ZipFile(fh)
    prefix = next((n.split("/", 1)[0] for n in zf.namelist() if n.endswith("/code/meta.json")), None)
    if prefix is None:
        raise RuntimeError("ember.jit.load: the archive has no code/meta.json record: it was not written by "
                           "ember.jit.save (ember.load reads ember.save files)")
    out = {}
    for n in names:
        full = f"{prefix}/{n}"
        out[n] = zf.read(full) if full in zf.namelist() else None
    return out, prefix, zf


def _rebuild_modules(meta, tensors):
    """The saved module tree as plain nn.Modules by path, and each one's original class name by identity."""
    by_path, names = {}, {}
    loaded = dict(enumerate(tensors))  # tensor index -> the object the modules hold (parameters as Parameters)
    for entry in meta["modules"]:
        m = ember.nn.Module()
        m.training = entry["training"]
        for name, k in entry["parameters"].items():
            t = tensors[k]
            loaded[k] = ember.nn.Parameter(t, requires_grad=meta["tensors"][k]["requires_grad"])
            m.register_parameter(name, loaded[k])
        for name, k in entry["buffers"].items():
            m.register_buffer(name, tensors[k])
        path = entry["path"]
        if path:
            parent, _, child = path.rpartition(".")
            by_path[parent].add_module(child, m)
        by_path[path] = m
        names[id(m)] = entry["type"]
    _rebuild_attrs(meta["attr_inputs"], by_path, loaded)
    return by_path, names


def _rebuild_attrs(attr_inputs, by_path, loaded):
    """Sets the attributes attr_inputs entries describe (parameters and buffers are already in place)."""
    for a in attr_inputs:
        if a["kind"] == "value":
            setattr(by_path[a["module"]], a["name"], a["value"])
        elif a["kind"] == "object":
            setattr(by_path[a["module"]], a["name"], _objects.decode(a["value"], _parse_type(a["type"])))
        elif a["kind"] == "tensor" and "tensor" in a:
            setattr(by_path[a["module"]], a["name"], loaded[a["tensor"]])
        elif a["kind"] == "tensor_list":
            setattr(by_path[a["module"]], a["name"], [loaded[k] for k in a["tensors"]])


def _signature(names, defaults):
    return inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                default=defaults.get(n, inspect.Parameter.empty)) for n in names])


def load(f, map_location=None, _extra_files=None):
    """Loads what ember.jit.save wrote: a ScriptModule or ScriptFunction, without the model's Python source."""
    with _opened(f, "rb", "ember.jit.load") as fh:
        start = fh.tell()
        meta = json.loads(_read_records(fh, ["code/meta.json"])[0]["code/meta.json"] or b"{}")
        fh.seek(start)
        records, _, _ = _read_records(fh, ["code/meta.json", "code/forward.graph"] +
                                      [f"code/methods/{m['name']}.graph" for m in meta.get("methods", [])] +
                                      [_submodules.graph_record(s["path"]) for s in meta.get("submodules", [])] +
                                      [f"extra/{n}" for n in (_extra_files or {})])
        fh.seek(start)
        tensors = ember.load(fh, map_location=map_location, weights_only=True)
    if meta.get("format") != "ember.jit" or not 1 <= meta.get("version", 0) <= JIT_FORMAT_VERSION:
        raise RuntimeError(f"ember.jit.load: unsupported archive format {meta.get('format')!r} version "
                           f"{meta.get('version')!r}")
    for name in list(_extra_files or {}):
        content = records[f"extra/{name}"]
        if content is not None:
            _extra_files[name] = content
    _objects.define_loaded_classes(meta.get("classes", []))
    graph = _C._jit.parse_graph(records["code/forward.graph"].decode(), [tensors[k] for k in meta["constants"]],
                                _python_ops.BUILTIN_PYTHON_OPS)
    params = list(_signature(meta["params"], meta.get("defaults", {})).parameters.values())
    ret = _parse_type(meta["return_type"])
    if meta["kind"] == "function":
        fn = ScriptFunction.__new__(ScriptFunction)
        fn.__wrapped_script_fn__ = None
        fn.__name__ = fn.__qualname__ = meta["name"]
        fn.__doc__ = None
        fn._g, fn._sig = graph, inspect.Signature(params)
        fn.param_types, fn.return_type = [_parse_type(t) for t in meta["param_types"]], ret
        fn._named = False  # the archive keeps no NamedTuple names: results load as plain tuples
        return fn
    by_path, names = _rebuild_modules(meta, tensors)
    attr_inputs = [(by_path[a["module"]], a["name"]) for a in meta["attr_inputs"]]
    methods = {}
    for m in meta.get("methods", []):  # the @ember.jit.export'ed methods
        g = _C._jit.parse_graph(records[f"code/methods/{m['name']}.graph"].decode(),
                                [tensors[k] for k in m["constants"]], _python_ops.BUILTIN_PYTHON_OPS)
        _rebuild_attrs(m["attr_inputs"], by_path, dict(enumerate(tensors)))
        sig = _signature(m["params"], m.get("defaults", {}))
        methods[m["name"]] = ScriptMethod(by_path[""], m["name"], g, [(by_path[a["module"]], a["name"])
                                                                     for a in m["attr_inputs"]],
                                          sig, _parse_type(m["return_type"]))
    root = make(RecursiveScriptModule, by_path[""], origin="load", names=names, _g=graph, _attr_inputs=attr_inputs,
                _sig=inspect.Signature(params), return_type=ret, _methods=methods)
    _submodules.attach_submodules(root, meta, records, tensors, by_path, _rebuild_attrs, _signature, _parse_type)
    return root


def _save_method(self, f, _extra_files=None):
    """Saves this to f (a path or binary file object) as ember.jit.save does."""
    save(self, f, _extra_files=_extra_files)


ScriptFunction.save = _save_method
ScriptModule.save = _save_method
