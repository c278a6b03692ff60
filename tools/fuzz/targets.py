"""What the fuzzer calls: every variant of every op in the database (core/ops/*.yaml: the raw binding
in ember._C, the Tensor method, the in-place method, out=), the other callables of ember._C, and the
public functions of ember.nn.functional, each with a generator of random and hostile arguments."""
from __future__ import annotations

import dataclasses
import inspect
import random

from tools.fuzz import values as V

# ember._C functions that change the process's global state (a fuzzed call would poison every call
# after it in the same child) or that wait, print or read files by design.
_C_SKIP_PREFIXES = ("_set", "set_", "manual_seed", "seed", "_cpu_empty_cache", "_autograd", "_forward_ad",
                    "_enter", "_exit", "_push", "_pop", "_load", "_save", "load", "save", "_jit", "_dlpack",
                    "from_dlpack", "_storage", "_record", "_profiler", "_disable", "_enable", "_use",
                    "use_", "_get", "_init", "_register", "_suspend")
_F_SKIP = {"interpolate_legacy"}


@dataclasses.dataclass
class Call:
    path: str                  # "_C.add", "Tensor.add_", "nn.functional.relu"
    args: list                 # specs (values.Spec); for methods the first is self
    kwargs: dict

    def describe(self) -> str:
        parts = [V.describe(a) for a in self.args] + [f"{k}={V.describe(v)}" for k, v in self.kwargs.items()]
        if self.path.startswith("Tensor."):
            return f"{parts[0]}.{self.path[7:]}({', '.join(parts[1:])})"
        return f"ember.{self.path}({', '.join(parts)})"


@dataclasses.dataclass
class Target:
    path: str
    make: object  # (rng) -> Call

    def call(self, rng: random.Random) -> Call:
        return self.make(rng)


def _base_shape(rng: random.Random) -> list[int]:
    return [rng.choice([0, 1, 2, 3, 4, 5]) for _ in range(rng.choice([0, 1, 2, 2, 3, 3, 4]))]


def _schema_target(path: str, op_args, kind: str) -> Target:
    def make(rng: random.Random) -> Call:
        base = _base_shape(rng)
        args, kwargs = [], {}
        for i, a in enumerate(op_args):
            if kind in ("method", "inplace") and i == 0:
                args.append(V.tensor_spec(rng, base))
                continue
            if a.default is not None and rng.random() < 0.4:
                continue  # left to its default
            spec = V.for_type(rng, a.type, a.name, base, a.default)
            if a.kwonly or (args and len(args) < i) or rng.random() < 0.15:
                kwargs[a.name] = spec
            else:
                args.append(spec)
        if kind == "out":
            kwargs["out"] = V.tensor_spec(rng, base) if rng.random() < 0.9 else V.hostile(rng, base)
        if rng.random() < 0.03:  # an argument too many, or a keyword nobody takes
            (args.append(V.Spec("lit", 1)) if rng.random() < 0.5 else kwargs.__setitem__("bogus", V.Spec("lit", 1)))
        return Call(path, args, kwargs)
    return Target(path, make)


def op_targets() -> list[Target]:
    from tools.opgen import opdb
    out, seen = [], set()
    for op in opdb.load():
        pub = op.public_name
        first_tensor = bool(op.args) and op.args[0].type in ("Tensor", "TensorLike")
        for kind in op.variants:
            if kind in ("function", "out"):
                path = op.binding_path  # _C.add, _C._linalg.cholesky (namespaced ops, tools/opgen/opdb.py)
            elif kind == "method" and first_tensor:
                path = f"Tensor.{pub}"
            elif kind == "inplace" and first_tensor:
                path = f"Tensor.{pub}_"
            else:
                continue
            key = (path, op.name, kind)
            if key in seen:
                continue
            seen.add(key)
            out.append(_schema_target(path, op.args, kind))
    return out


def _generic_target(path: str, params: list[inspect.Parameter] | None) -> Target:
    """A function without a schema: argument kinds guessed from parameter names and defaults."""
    def value_for(rng, p: inspect.Parameter, base):
        name, d = p.name, p.default
        if rng.random() < 0.07:
            return V.hostile(rng, base)
        if name in ("input", "x", "x1", "x2", "target", "weight", "bias", "other", "query", "key", "value",
                    "anchor", "positive", "negative", "input1", "input2", "log_probs", "targets", "grid",
                    "theta", "indices", "offsets", "running_mean", "running_var", "mask", "attn_mask",
                    "input_lengths", "target_lengths", "var", "labels", "tensor", "self", "src", "index"):
            if d is None and rng.random() < 0.3:
                return V.Spec("lit", None)
            return V.tensor_spec(rng, base, index_like=name in ("target", "indices", "offsets", "targets", "labels",
                                                                  "index", "input_lengths", "target_lengths"))
        if isinstance(d, bool):
            return V.Spec("lit", rng.choice([True, False, True, False, 2, None]))
        if isinstance(d, int):
            return V.Spec("lit", V.int_value(rng))
        if isinstance(d, float):
            return V.Spec("lit", V.float_value(rng))
        if isinstance(d, str):
            return V.Spec("lit", rng.choice(V.STRINGS + [d] * 6))
        if isinstance(d, (tuple, list)):
            return V.Spec("lit", [V.int_value(rng) for _ in range(len(d) or rng.randrange(3))])
        r = rng.random()
        if name in ("kernel_size", "stride", "padding", "dilation", "output_size", "size", "pad", "output_padding",
                    "normalized_shape", "shape", "dims", "dim", "groups", "scale_factor", "num_classes", "p",
                    "upscale_factor", "downscale_factor", "chunks", "num_groups", "max_norm", "k", "n",
                    "lambd", "alpha", "beta", "eps", "margin", "momentum", "threshold", "value", "negative_slope"):
            if r < 0.45:
                return V.Spec("lit", V.int_value(rng))
            if r < 0.6:
                return V.Spec("lit", V.float_value(rng))
            return V.Spec("lit", tuple(V.int_value(rng) for _ in range(rng.choice([1, 2, 3, 4]))))
        if r < 0.5:
            return V.tensor_spec(rng, base)
        if r < 0.75:
            return V.Spec("lit", V.int_value(rng))
        return V.Spec("lit", None)

    def make(rng: random.Random) -> Call:
        base = _base_shape(rng)
        if params is None:
            n = rng.choice([0, 1, 1, 2, 2, 3])
            return Call(path, [rng.choice([V.tensor_spec(rng, base), V.Spec("lit", V.int_value(rng)),
                                           V.Spec("lit", V.float_value(rng)), V.Spec("lit", None)])
                               for _ in range(n)], {})
        args, kwargs = [], {}
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or (p.name.startswith("_") and p.default is not p.empty):
                continue  # (a private parameter, softmax's _stacklevel, is PyTorch's internal plumbing too)
            has_default = p.default is not p.empty
            if has_default and rng.random() < 0.45:
                continue
            spec = value_for(rng, p, base)
            if p.kind == p.KEYWORD_ONLY or len(args) < sum(1 for q in params[:params.index(p)]
                                                           if q.kind != q.KEYWORD_ONLY and q.kind not in
                                                           (q.VAR_POSITIONAL, q.VAR_KEYWORD)):
                kwargs[p.name] = spec
            else:
                args.append(spec)
        return Call(path, args, kwargs)
    return Target(path, make)


def functional_targets(ember) -> list[Target]:
    F = ember.nn.functional
    out = []
    for name in sorted(dir(F)):
        f = getattr(F, name)
        if name.startswith("_") or name in _F_SKIP or not callable(f) or inspect.isclass(f):
            continue
        if getattr(f, "__module__", "") and not getattr(f, "__module__", "").startswith("ember"):
            continue
        try:
            params = list(inspect.signature(f).parameters.values())
        except (TypeError, ValueError):
            params = None
        out.append(_generic_target(f"nn.functional.{name}", params))
    return out


def c_targets(ember, known: set[str]) -> list[Target]:
    """ember._C's other callables (hand-written bindings), with generic arguments."""
    out = []
    for name in sorted(dir(ember._C)):
        if name.startswith("__") or name in known or name.startswith(_C_SKIP_PREFIXES):
            continue
        f = getattr(ember._C, name)
        if not callable(f) or inspect.isclass(f) or inspect.ismodule(f):
            continue
        out.append(_generic_target(f"_C.{name}", None))
    return out


def all_targets(ember) -> list[Target]:
    ops = op_targets()
    known = {t.path[3:] for t in ops if t.path.startswith("_C.")}
    return ops + c_targets(ember, known) + functional_targets(ember)


def resolve(ember, path: str):
    obj = ember
    for part in path.split("."):
        obj = ember.Tensor if part == "Tensor" and obj is ember else getattr(obj, part)
    return obj
