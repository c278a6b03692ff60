"""Loads the op database (core/ops/*.yaml) into Op records: the one place its format is read."""
from __future__ import annotations

import dataclasses
import pathlib
import re

import yaml

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]
_INTS = ["uint8", "int8", "int16", "int32", "int64"]
_FLOATS = ["float16", "bfloat16", "float32", "float64"]
_COMPLEX = ["complex64", "complex128"]
DTYPE_GROUPS = {
    "all": DTYPES,
    "numeric": _INTS + _FLOATS + _COMPLEX,
    "integral": ["bool"] + _INTS,
    "ints": _INTS,
    "floating": _FLOATS,
    "float_complex": _FLOATS + _COMPLEX,
    "real": ["bool"] + _INTS + _FLOATS,
    "real_numeric": _INTS + _FLOATS,
    "complex": _COMPLEX,
}
PROMOTIONS = {"default", "int_to_float", "bool_out", "complex_to_real", "none"}
# inplace_function: NAME_ is also a top-level function (torch.exp_), for the ops PyTorch has one for.
VARIANTS = {"function", "method", "inplace", "inplace_function", "out"}
# Every key an entry may have (core/ops/README.md says what each means); a misspelled key is an error,
# not a silently ignored line.
ENTRY_KEYS = {"name", "schema", "doc", "variants", "dtypes", "promotion", "kernel", "includes", "backward",
              "differentiable", "not_differentiable", "composite", "elementwise", "overload_of",
              "method_overload_of", "check", "iter_check", "int_divisor_check", "captures", "simd_f32", "mixed_devices",
              "namespace", "aliases", "autocast", "deprecated_order"}
KERNEL_KEYS = {"pointwise", "impl"}
# `autocast:` -> what an autocast region does to the op's floating tensor arguments (PyTorch's CPU cast
# policies): run in the region's lower precision, in float32, or in the widest of their types.
AUTOCAST_POLICIES = {"lower_precision_fp", "fp32", "promote"}
# `namespace:` -> the submodule of ember._C its functions are bound in (the Python package re-exports
# them: ember.linalg.cholesky is ember._C._linalg.cholesky). An op without one is top level (ember.NAME).
NAMESPACES = {"linalg": "_linalg", "special": "_special", "fft": "_fft", "nn.functional": "_nn"}
ROOT = pathlib.Path(__file__).resolve().parents[2]
OPS_DIR = ROOT / "core" / "ops"


@dataclasses.dataclass
class Arg:
    type: str          # schema type, e.g. "Tensor", "Scalar?", "int[]"
    name: str
    default: str | None
    kwonly: bool

    @property
    def is_tensor(self) -> bool:
        return self.type in ("Tensor", "TensorLike")


@dataclasses.dataclass
class Op:
    name: str
    family: str
    schema: str
    args: list[Arg]
    returns: str
    variants: list[str]
    dtypes: list[str]
    promotion: str
    pointwise: str | None
    impl: bool
    doc: str
    entry: dict
    ret_fields: list[str] = dataclasses.field(default_factory=list)  # names of a "(Tensor a, Tensor b)" return

    @property
    def composite(self) -> bool:
        """Made of other ops: ops::NAME is hand-written with recorded (ember::ad::) ops, and
        ad::NAME calls it without a node of its own, so gradients come from the parts."""
        return self.entry.get("composite") is True

    @property
    def overload_of(self) -> str | None:
        """The public name this op is bound under as an overload (`overload_of: max`), if any."""
        return self.entry.get("overload_of")

    @property
    def public_name(self) -> str:
        return self.overload_of or self.name

    @property
    def aliases(self) -> list[str]:
        """Second public names every binding of the op is also registered under (divide for div):
        the same callables, not copies of the entry."""
        return list(self.entry.get("aliases", []))

    @property
    def namespace(self) -> str | None:
        """The Python namespace its function is bound in (`linalg`, `special`, `fft`, `nn.functional`),
        None for the top level."""
        return self.entry.get("namespace")

    @property
    def py_name(self) -> str:
        """The function's name in its namespace: the public name less the namespace's prefix
        (linalg_cholesky is ember.linalg.cholesky)."""
        prefix = f"{self.namespace}_" if self.namespace else ""
        return self.public_name[len(prefix):] if prefix and self.public_name.startswith(prefix) else self.public_name

    @property
    def binding_path(self) -> str:
        """Where its function binding lives, from `ember`: `_C.exp`, `_C._linalg.cholesky`, `_C._nn.gelu`."""
        sub = f"{NAMESPACES[self.namespace]}." if self.namespace else ""
        return f"_C.{sub}{self.py_name}"

    def function(self, ember):
        """The op's public callable (the one resolver for tests and tools): ember.linalg.cholesky,
        ember.exp (a Python override where ember has one, as users see it), ember._C._nn.gelu for the
        nn ops (ember.nn.functional wraps them with PyTorch's extra arguments such as inplace) and
        ember._C.NAME for private ops."""
        if self.namespace in ("linalg", "special", "fft"):
            return getattr(getattr(ember, self.namespace), self.py_name)
        obj = ember
        if self.namespace is None and not self.py_name.startswith("_") and hasattr(ember, self.py_name):
            return getattr(ember, self.py_name)
        for part in self.binding_path.split("."):
            obj = getattr(obj, part)
        return obj

    @property
    def autocast(self) -> str | None:
        """Its autocast cast policy (`lower_precision_fp`, `fp32`, `promote`), None when autocast leaves it alone."""
        return self.entry.get("autocast")

    @property
    def tensor_args(self) -> list[Arg]:
        return [a for a in self.args if a.is_tensor]


def parse_schema(schema: str) -> tuple[str, list[Arg], str]:
    m = re.fullmatch(r"\s*(\w+)\((.*)\)\s*->\s*(.+?)\s*", schema)
    if not m:
        raise ValueError(f"bad schema: {schema!r}")
    name, body, ret = m.groups()
    args, kwonly, depth, cur = [], False, 0, ""
    parts = []
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        cur += ch
    parts.append(cur)
    for p in (p.strip() for p in parts):
        if not p:
            continue
        if p == "*":
            kwonly = True
            continue
        decl, _, default = p.partition("=")
        typ, _, aname = decl.strip().rpartition(" ")
        args.append(Arg(typ.strip(), aname.strip(), default.strip() or None, kwonly))
    return name, args, ret


def parse_returns(ret: str) -> tuple[str, list[str]]:
    """"Tensor" -> ("Tensor", []); "(Tensor values, Tensor indices)" -> ("tuple", ["values", "indices"])."""
    if not ret.startswith("("):
        return ret, []
    fields = []
    for part in ret.strip("()").split(","):
        typ, _, name = part.strip().partition(" ")
        if typ != "Tensor" or not name.isidentifier():
            raise ValueError(f"tuple returns must be named Tensors, got {part.strip()!r}")
        fields.append(name)
    return "tuple", fields


def _dtypes(spec) -> list[str]:
    if spec is None:
        return list(DTYPES)
    if isinstance(spec, str):
        spec = [spec]
    out: list[str] = []
    for s in spec:
        out += DTYPE_GROUPS.get(s, [s])
    unknown = [d for d in out if d not in DTYPES]
    if unknown:
        raise ValueError(f"unknown dtypes {unknown}")
    return [d for d in DTYPES if d in out]


def _check_composite(fname: str, name: str, e: dict, variants: list[str]) -> None:
    if "composite" not in e:
        return
    if e["composite"] is not True:
        raise ValueError(f"{fname}: {name}: composite: takes only true")
    if "kernel" in e:
        raise ValueError(f"{fname}: {name}: a composite op declares no kernel (its C++ is ops::{name}, made of "
                         "recorded ops)")
    said = [k for k in ("backward", "differentiable", "not_differentiable") if k in e]
    if said:
        raise ValueError(f"{fname}: {name}: a composite op gets its gradient from the ops it is made of; drop "
                         f"{said[0]}: or make it a normal op with a kernel")
    if "inplace" in variants:
        raise ValueError(f"{fname}: {name}: a composite op has no in-place variant")
    if "out" in variants and not e["schema"].split("->")[-1].strip() == "Tensor":
        raise ValueError(f"{fname}: {name}: a composite op's out= variant needs a single Tensor return")


def _check_keys(fname: str, e) -> None:
    if not isinstance(e, dict) or not isinstance(e.get("name"), str) or "schema" not in e:
        raise ValueError(f"{fname}: every entry is a mapping with a name and a schema, got {e!r:.80}")
    unknown = sorted(set(e) - ENTRY_KEYS)
    kernel = e.get("kernel", {})
    unknown += [f"kernel.{k}" for k in sorted(set(kernel) - KERNEL_KEYS)] if isinstance(kernel, dict) else ["kernel"]
    if unknown:
        raise ValueError(f"{fname}: {e['name']}: unknown key(s) {', '.join(unknown)} (the keys are listed in "
                         "core/ops/README.md)")


def _check_autocast(fname: str, name: str, e: dict) -> None:
    policy = e.get("autocast")
    if policy is not None and policy not in AUTOCAST_POLICIES:
        raise ValueError(f"{fname}: {name}: autocast: takes one of {', '.join(sorted(AUTOCAST_POLICIES))}, "
                         f"got {policy!r}")


def _check_namespace(fname: str, name: str, e: dict) -> None:
    ns = e.get("namespace")
    if ns is not None and ns not in NAMESPACES:
        raise ValueError(f"{fname}: {name}: namespace: takes one of {', '.join(NAMESPACES)}, got {ns!r}")
    # PyTorch has no torch.linalg_cholesky: a prefixed name belongs in its namespace.
    for prefix in ("linalg", "special", "fft"):
        if name.startswith(prefix + "_") and ns != prefix:
            raise ValueError(f"{fname}: {name}: an op named {prefix}_* needs namespace: {prefix}")


def load(ops_dir: pathlib.Path = OPS_DIR) -> list[Op]:
    ops: list[Op] = []
    seen: set[str] = set()
    seen_aliases: set[str] = set()
    for path in sorted(ops_dir.glob("*.yaml")):
        for e in yaml.safe_load(path.read_text()) or []:
            _check_keys(path.name, e)
            _check_namespace(path.name, e["name"], e)
            _check_autocast(path.name, e["name"], e)
            name, args, ret = parse_schema(e["schema"])
            if name != e["name"]:
                raise ValueError(f"{path.name}: schema name {name} != entry name {e['name']}")
            if name in seen:
                raise ValueError(f"op {name} declared twice")
            seen.add(name)
            kernel = e.get("kernel", {})
            variants = e.get("variants", ["function", "method"])
            if set(variants) - VARIANTS:
                raise ValueError(f"{name}: unknown variants {set(variants) - VARIANTS}")
            if "inplace_function" in variants and "inplace" not in variants:
                raise ValueError(f"{path.name}: {name}: inplace_function needs the inplace variant")
            if not isinstance(e.get("aliases", []), list) or not all(
                    isinstance(a, str) and a.isidentifier() for a in e.get("aliases", [])):
                raise ValueError(f"{path.name}: {name}: aliases: takes a list of names")
            promotion = e.get("promotion", "default")
            if promotion not in PROMOTIONS:
                raise ValueError(f"{name}: unknown promotion {promotion}")
            ret, ret_fields = parse_returns(ret)
            _check_composite(path.name, name, e, variants)
            ops.append(Op(name=name, family=path.stem, schema=e["schema"], args=args, returns=ret,
                          ret_fields=ret_fields,
                          variants=variants, dtypes=_dtypes(e.get("dtypes")), promotion=promotion,
                          pointwise=kernel.get("pointwise"), impl="impl" in kernel,
                          doc=e.get("doc", ""), entry=e))
    by_name = {o.name: o for o in ops}
    for o in ops:
        for a in o.aliases:
            if a in by_name or a in seen_aliases:
                raise ValueError(f"{o.name}: alias {a} is already an op or another op's alias")
            seen_aliases.add(a)
    for o in ops:
        if o.overload_of and o.overload_of not in by_name:
            raise ValueError(f"{o.name}: overload_of names an unknown op {o.overload_of}")
        if o.overload_of and by_name[o.overload_of].namespace != o.namespace:
            raise ValueError(f"{o.name}: an overload has the namespace of {o.overload_of}")
    return ops
