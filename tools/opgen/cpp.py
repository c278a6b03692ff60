"""C++ spelling of op signatures, shared by the generators: parameter and return types, the
declarations of ops::NAME (kernels) and ad::NAME (recorded), and their argument lists."""
from __future__ import annotations

from .opdb import Arg, Op

PARAM = {"Tensor": "const Tensor&", "TensorLike": "const Tensor&", "Tensor?": "const Tensor&",
         "TensorLike?": "const Tensor&",
         "Tensor[]": "const std::vector<Tensor>&", "Scalar": "const Scalar&",
         "Scalar?": "const std::optional<Scalar>&", "int": "int64_t", "int?": "std::optional<int64_t>",
         "int[]": "const DimVec&", "int[]?": "const std::optional<DimVec>&", "float": "double",
         "float?": "std::optional<double>", "bool": "bool", "bool?": "std::optional<bool>",
         "str": "const std::string&", "str?": "const std::optional<std::string>&",
         "ScalarType?": "ScalarType", "ScalarType": "ScalarType", "Device?": "std::optional<Device>",
         "Generator?": "GeneratorImpl*"}  # null: the default generator of the device
RET = {"Tensor": "Tensor", "Tensor[]": "std::vector<Tensor>", "bool": "bool", "int": "int64_t",
       "Scalar": "Scalar"}


def params(args: list[Arg]) -> str:
    return ", ".join(f"{PARAM[a.type]} {a.name}" for a in args)


def names(args: list[Arg]) -> str:
    return ", ".join(a.name for a in args)


def ret_type(op: Op) -> str:
    if op.returns == "tuple":
        return "std::tuple<" + ", ".join("Tensor" for _ in op.ret_fields) + ">"
    return RET[op.returns]


def out_params(op: Op) -> str:
    """The leading out parameters of name_out: `out`, or one per named field of a tuple return."""
    outs = op.ret_fields or ["out"]
    return ", ".join(f"const Tensor& {o}" for o in outs)


def signatures(op: Op) -> dict[str, str]:
    """The C++ signature of each variant that has one: "function" (also methods), "inplace", "out"."""
    ret, ps = ret_type(op), params(op.args)
    sig = {}
    if {"function", "method"} & set(op.variants):
        sig["function"] = f"{ret} {op.name}({ps})"
    if "inplace" in op.variants:
        sig["inplace"] = f"Tensor {op.name}_({ps})"
    if "out" in op.variants:
        sep = ", " if op.args else ""
        out_ret = ret if op.returns == "tuple" else "Tensor"
        sig["out"] = f"{out_ret} {op.name}_out({out_params(op)}{sep}{ps})"
    return sig


def decls(op: Op) -> str:
    return "\n".join(s + ";" for s in signatures(op).values())
