"""Public functions of ember's namespace (and ember.nn.functional) that are written in Python and have no OpInfo in
tests/opdb: neither an op of the op database (core/ops/*.yaml, whose coverage test requires an entry) nor a
python_level OpInfo. Run from the repository root: .venv/bin/python tools/opinfo_gaps.py [--list]"""
import pathlib
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from ember.testing.opinfo import REGISTRY  # noqa: E402
from opdb import entries  # noqa: E402,F401  (registers every OpInfo)
from tools.opgen import opdb  # noqa: E402

# modules whose functions are not ops (dtype/RNG/state/serialization/utility helpers, not tensor math)
NOT_OPS = ("ember._default_device", "ember._deterministic", "ember._dtype_info", "ember._matmul_precision",
           "ember._memory_format", "ember._layout", "ember._size", "ember._warn_always", "ember._hub_download",
           "ember._serialization_archive", "ember._serialization_scan", "ember.serialization", "ember.random",
           "ember._legacy_tensor_types", "ember._storage_typed", "ember._storage_untyped", "ember._tensor_str",
           "ember.overrides", "ember.func", "ember.autograd", "ember.amp", "ember.cuda", "ember.cpu",
           "ember.backends", "ember.multiprocessing", "ember.accelerator", "ember.futures", "ember.hub",
           "ember.utils", "ember.testing", "ember._openblas", "ember.return_types", "ember.storage")
# functions that are not tensor math: predicates, conversions, constructors over memory, thread/anomaly
# switches, and the functions PyTorch removed (they only raise, tested in tests/linalg)
NOT_OP_NAMES = {"asarray", "frombuffer", "to_dlpack", "get_device", "numel", "init_num_threads",
                "set_anomaly_enabled", "set_flush_denormal", "empty_permuted", "sparse_coo_tensor",
                "sparse_csr_tensor", "symeig", "eig", "lstsq", "solve", "matrix_rank"}


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


def _unwrap(obj):
    return getattr(obj, "__wrapped__", obj)


def gaps():
    yaml_ops = {op.name for op in opdb.load()}
    covered = set(REGISTRY) | yaml_ops
    functions = {**python_functions(ember, ""), **python_functions(F, "nn.functional.")}
    # a function is covered by its own OpInfo, or (nn.functional.X) by the op X's when it is the same object
    missing = sorted(n for n, fn in functions.items() if n not in covered
                     and not (n.startswith("nn.functional.") and n.split(".")[-1] in covered
                              and _unwrap(getattr(ember, n.split(".")[-1], None)) is fn))
    return functions, missing


if __name__ == "__main__":
    functions, missing = gaps()
    for label, nn in (("ember.*", False), ("ember.nn.functional.*", True)):
        total = sum(n.startswith("nn.functional.") == nn for n in functions)
        lacking = sum(n.startswith("nn.functional.") == nn for n in missing)
        print(f"{label}: {total} Python-written functions, {lacking} without an OpInfo")
    if "--list" in sys.argv:
        print(" ".join(missing))
