"""Op-table registration of the op database's ops under the namespace `aten`, so ember.jit's interpreter
calls every op through the op table (no Python per op). Each op gets one boxed kernel, registered for
every dispatch key: it unboxes the stack by the schema and calls the recorded `ad::NAME` (which
dispatches on the tensors' device itself, and records autograd as eager calls do), or inside an autocast
region the op's autocast wrapper `amp::NAME` when its entry has a policy, as the eager bindings do."""
from __future__ import annotations

from .opdb import Op

# How a boxed kernel reads one argument of each schema type from the stack (`s[i]`).
UNBOX = {
    "Tensor": "s[{i}].to_tensor()", "Tensor?": "s[{i}].to_tensor()",
    "TensorLike": "tensor_like(s[{i}])", "TensorLike?": "tensor_like(s[{i}])",
    "Tensor[]": "s[{i}].to_tensor_list()", "Scalar": "s[{i}].to_scalar()",
    "Scalar?": "(s[{i}].is_none() ? std::optional<Scalar>() : std::optional<Scalar>(s[{i}].to_scalar()))",
    "int": "s[{i}].to_int()",
    "int?": "(s[{i}].is_none() ? std::optional<int64_t>() : std::optional<int64_t>(s[{i}].to_int()))",
    "int[]": "s[{i}].to_int_list()",
    "int[]?": "(s[{i}].is_none() ? std::optional<DimVec>() : std::optional<DimVec>(s[{i}].to_int_list()))",
    "float": "s[{i}].to_double()",
    "float?": "(s[{i}].is_none() ? std::optional<double>() : std::optional<double>(s[{i}].to_double()))",
    "bool": "s[{i}].to_bool()",
    "bool?": "(s[{i}].is_none() ? std::optional<bool>() : std::optional<bool>(s[{i}].to_bool()))",
    "str": "s[{i}].to_str()",
    "str?": "(s[{i}].is_none() ? std::optional<std::string>() : std::optional<std::string>(s[{i}].to_str()))",
    "ScalarType": "scalar_type(s[{i}])", "ScalarType?": "scalar_type(s[{i}])",
    "Device?": "device(s[{i}])", "Generator?": "s[{i}].to_generator().get()",
}


def registrable(op: Op) -> bool:
    """Ops with a C++ function form; method-only entries are overloads reached through their function."""
    return "function" in op.variants and all(a.type in UNBOX for a in op.args)


def registrable_inplace(op: Op) -> bool:
    """In-place forms: also for ops that have no function form (copy_: what `t[i] = x` calls)."""
    return "inplace" in op.variants and all(a.type in UNBOX for a in op.args)


def _push(op: Op, call: str, inplace: bool = False) -> str:
    if op.returns == "tuple" and not inplace:
        pushes = " ".join(f"s.emplace_back(std::get<{k}>(r));" for k in range(len(op.ret_fields)))
        return f"auto r = {call}; s.clear(); {pushes}"
    return f"auto r = {call}; s.clear(); s.emplace_back(std::move(r));"


def _direct(op: Op, call: str) -> str:
    """The interpreter's unboxed entry (jit/boxing.h DirectKernel): arguments read in place through
    pointers (no stack copies), one result returned; tuple-returning ops have none."""
    if op.returns == "tuple" and not call.startswith(f"ad::{op.name}_("):
        return ""
    args = ", ".join(UNBOX[a.type].replace("s[{i}]", "(*a[{i}])").format(i=i) for i, a in enumerate(op.args))
    return (f"    if (every) set_direct(e, [](const IValue* const* a) -> IValue "
            f"{{ return IValue({call.replace('ARGS', args)}); }});\n")


def _call(op: Op, args: str) -> str:
    """The recorded op, through its autocast wrapper inside an autocast region when the entry has a policy:
    scripted code called in a region casts as eager code does (as PyTorch's Autocast key does for it)."""
    plain = f"ad::{op.name}({args})"
    if not op.autocast:
        return plain
    return f"(amp::cpu_active() ? amp::{op.name}({args}) : {plain})"


def _kernel(op: Op) -> str:
    args = ", ".join(UNBOX[a.type].format(i=i) for i, a in enumerate(op.args))
    return (f'  {{\n    OpEntry& e = t.define("aten", "{op.schema}");\n'
            f"    BoxedKernel k = [](Stack& s) {{ {_push(op, _call(op, args))} }};\n"
            "    bool every = set_every_key(e, k);\n"
            f"{_direct(op, _call(op, 'ARGS'))}  }}\n")


def _inplace_kernel(op: Op) -> str:
    """NAME_ (in-place, returns its first argument): what `x += y` on a tensor calls, as eager does."""
    args = ", ".join(UNBOX[a.type].format(i=i) for i, a in enumerate(op.args))
    schema = op.name + "_" + op.schema[len(op.name):op.schema.rindex("->")] + "-> Tensor"
    return (f'  {{\n    OpEntry& e = t.define("aten", "{schema}");\n'
            f"    BoxedKernel k = [](Stack& s) {{ {_push(op, f'ad::{op.name}_({args})', inplace=True)} }};\n"
            "    bool every = set_every_key(e, k);\n"
            f"{_direct(op, f'ad::{op.name}_(ARGS)')}  }}\n")


def gen_family(family: str, ops: list[Op]) -> str:
    body = "".join((_kernel(op) if registrable(op) else "") + (_inplace_kernel(op) if registrable_inplace(op) else "")
                   for op in ops if registrable(op) or registrable_inplace(op))
    includes = "".join(f'#include "generated/ops/{op.name}.h"\n' for op in ops
                       if registrable(op) or registrable_inplace(op))
    if any(op.autocast for op in ops if registrable(op)):
        includes += '#include "amp/autocast_state.h"\n#include "generated/amp/autocast_ops.h"\n'
    return ("// Generated by tools/opgen (jit_reg.py) from core/ops/*.yaml. Do not edit.\n"
            f"{includes}#include \"jit/boxing.h\"\n\nnamespace ember::jit {{\n\n"
            f"void register_{family}_ops(OpTable& t) {{\n{body}}}\n\n}}  // namespace ember::jit\n")


def gen_all(families: list[str], ops: list[Op]) -> str:
    pairs = "".join(f'{{"{o.name}", "{o.overload_of}"}}, ' for o in ops if o.overload_of and registrable(o))
    decl = "".join(f"void register_{f}_ops(OpTable&);\n" for f in families)
    calls = "".join(f"  register_{f}_ops(t);\n" for f in families)
    return ("// Generated by tools/opgen (jit_reg.py). Do not edit.\n#include \"jit/boxing.h\"\n\n"
            f"namespace ember::jit {{\n\n{decl}\nvoid register_database_ops(OpTable& t) {{\n{calls}}}\n\n"
            "std::vector<std::pair<std::string, std::string>> database_overloads() {\n"
            f"  return {{{pairs}}};\n}}\n\n"
            "}  // namespace ember::jit\n")
