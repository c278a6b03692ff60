"""Public functions without an OpInfo in tests/opdb, per namespace: ember, ember.nn.functional, ember.linalg,
ember.fft, ember.special and the Tensor methods. A name is covered by an OpInfo in ember.testing's REGISTRY under
its own name (python_level entries: 'nn.functional.relu', 'Tensor.new_ones'), by the op database op it binds
(core/ops/*.yaml: the coverage test requires every op an entry; 'linalg_inv' for ember.linalg.inv, an op's
aliases, its NAME_ in-place variant) or, for ember.fft, by tests/opdb/entries/fft.py's PUBLIC list.
Not ops (dtype/RNG/state/serialization helpers, conversions, introspection, autograd plumbing) are left out.
Run from the repository root: .venv/bin/python tools/opinfo_gaps.py [--list]"""
import inspect
import pathlib
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from ember.testing.opinfo import REGISTRY  # noqa: E402
from opdb import entries  # noqa: E402,F401  (registers every OpInfo)
from opdb.entries.fft import PUBLIC as FFT_PUBLIC  # noqa: E402
from tools.opgen import opdb  # noqa: E402

# modules whose functions are not ops (dtype/RNG/state/serialization/utility helpers, not tensor math)
NOT_OPS = ("ember._default_device", "ember._deterministic", "ember._dtype_info", "ember._matmul_precision",
           "ember._memory_format", "ember._layout", "ember._size", "ember._warn_always", "ember._hub_download",
           "ember._serialization_archive", "ember._serialization_scan", "ember.serialization", "ember.random",
           "ember._legacy_tensor_types", "ember._storage_typed", "ember._storage_untyped", "ember._tensor_str",
           "ember.overrides", "ember.func", "ember.autograd", "ember.amp", "ember.cuda", "ember.cpu",
           "ember.backends", "ember.multiprocessing", "ember.accelerator", "ember.futures", "ember.hub",
           "ember.utils", "ember.testing", "ember._openblas", "ember.return_types", "ember.storage",
           "ember._tensor_convert", "ember._tensor_device", "ember._tensor_storage", "ember._tensor_autograd",
           "ember.sparse._resize", "ember.sparse._convert")
# functions that are not tensor math: predicates, conversions, constructors over memory, thread/anomaly
# switches, and the functions PyTorch removed (they only raise, tested in tests/linalg)
NOT_OP_NAMES = {"asarray", "frombuffer", "to_dlpack", "get_device", "numel", "init_num_threads",
                "set_anomaly_enabled", "set_flush_denormal", "empty_permuted", "sparse_coo_tensor",
                "sparse_csr_tensor", "symeig", "eig", "lstsq", "solve", "matrix_rank"}
# Tensor methods that read or convert rather than compute: sizes and strides, autograd and storage plumbing,
# the sparse layout's accessors (tests/sparse), and the methods PyTorch removed (they only raise)
NOT_OP_METHODS = {"dim", "ndimension", "nelement", "numel", "size", "stride", "storage_offset", "data_ptr",
                  "element_size", "item", "detach_", "requires_grad_", "retain_grad", "dense_dim", "sparse_dim",
                  "sparse_mask", "to_sparse_coo", "to_sparse_csr", "as_subclass", "eig", "lstsq", "solve", "symeig"}


def python_functions(namespace, prefix):
    """name -> function for the Python-written public functions of namespace (its op functions are builtins)."""
    found = {}
    for name in dir(namespace):
        obj = getattr(namespace, name)
        obj = getattr(obj, "__wrapped__", obj)  # nn.functional's __torch_function__ wrappers
        if name.startswith(("_", "is_")) or name in NOT_OP_NAMES or not isinstance(obj, types.FunctionType):
            continue
        module = getattr(obj, "__module__", "") or ""
        if not module.startswith("ember") or module.startswith(NOT_OPS):
            continue
        found[prefix + name] = obj
    return found


def builtin_functions(namespace, prefix):
    """name -> builtin (C-bound op function) of namespace."""
    return {prefix + n: getattr(namespace, n) for n in dir(namespace)
            if not n.startswith("_") and isinstance(getattr(namespace, n), types.BuiltinFunctionType)}


def tensor_methods():
    """'Tensor.NAME' -> callable for the public Tensor methods that compute (C-bound or Python-written)."""
    found = {}
    for name in dir(ember.Tensor):
        obj = getattr(ember.Tensor, name)
        if name.startswith(("_", "is_")) or name in NOT_OP_METHODS:
            continue
        if isinstance(obj, types.FunctionType):
            module = obj.__module__ or ""
            if module.startswith("ember") and not module.startswith(NOT_OPS):
                found["Tensor." + name] = obj
        elif type(obj).__name__ == "method_descriptor":
            found["Tensor." + name] = obj
    return found


def _unwrap(obj):
    return inspect.unwrap(obj) if callable(obj) else obj


def _op_names():
    """Every name an op database op binds: its name, its aliases, and NAME_ of each when it has an in-place form."""
    names = set()
    for op in opdb.load():
        for base in [op.name, *(op.entry.get("aliases") or [])]:
            names.add(base)
            if "inplace" in op.variants or "inplace_function" in op.variants:
                names.add(base + "_")
    return names


def _covered_by_name(qualified, covered):
    """covered under its own name, or as the op its bare name (linalg_NAME, special_NAME) binds; an
    nn.functional wrapper needs its own OpInfo (or to be the op's function itself, see gaps)."""
    if qualified in covered:
        return True
    space, _, bare = qualified.rpartition(".")
    candidates = {bare} if space in ("", "Tensor") else {f"{space}_{bare}"} if space in ("linalg", "special") else set()
    return bool(candidates & covered)


def gaps():
    covered = set(REGISTRY) | _op_names()
    top = {**python_functions(ember, "")}
    functions = {**top, **python_functions(F, "nn.functional.")}
    for space in ("linalg", "special"):
        functions.update(python_functions(getattr(ember, space), space + "."))
        functions.update(builtin_functions(getattr(ember, space), space + "."))
    functions.update(python_functions(ember.fft, "fft."))
    functions.update(tensor_methods())
    covered |= {"fft." + info.name for info in FFT_PUBLIC}
    # a builtin special.X is the op its C name says (special.psi is digamma)
    covered |= {n for n, fn in functions.items() if isinstance(fn, types.BuiltinFunctionType)
                and n.startswith("special.") and fn.__name__ in covered}
    missing = []
    for name, fn in functions.items():
        if _covered_by_name(name, covered):
            continue
        bare = name.rpartition(".")[2]
        # nn.functional.X and Tensor.X covered by ember.X's OpInfo when they are the same function
        if name.startswith(("nn.functional.", "Tensor.")) and bare in covered and \
                _unwrap(getattr(ember, bare, None)) is _unwrap(fn):
            continue
        missing.append(name)
    return functions, sorted(missing)


def namespace_of(name):
    return name.rpartition(".")[0] or "ember"


if __name__ == "__main__":
    functions, missing = gaps()
    for space in ("ember", "nn.functional", "linalg", "fft", "special", "Tensor"):
        total = sum(namespace_of(n) == space for n in functions)
        lacking = sum(namespace_of(n) == space for n in missing)
        print(f"{space}: {total} public functions, {lacking} without an OpInfo")
    print(f"all: {len(functions)} public functions, {len(missing)} without an OpInfo")
    if "--list" in sys.argv:
        print(" ".join(missing))
