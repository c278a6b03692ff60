"""Bindings of PyTorch's deprecated argument orders (`deprecated_order: [input, alpha, other]` on add and sub:
torch.add(input, alpha, other), Tensor.add_(alpha, other)): the binding tries that order first, warns once per
process as PyTorch does (one flag for every deprecated form) and calls the op with its arguments in their
current order."""
from __future__ import annotations

import dataclasses

from .opdb import Arg, Op

# PyTorch's names of our schema types in its warning text
_TORCH_TYPE = {"TensorLike": "Tensor", "Tensor?": "Tensor", "Scalar": "Number", "Scalar?": "Number?"}


def _torch_sig(name: str, args: list[Arg], out: bool) -> str:
    """A signature as PyTorch prints it in the warning: `add(Tensor input, Number alpha, Tensor other, *, Tensor
    out = None)`."""
    parts, kw = [], False
    for a in args:
        if a.kwonly and not kw:
            parts.append("*")
            kw = True
        parts.append(f"{_TORCH_TYPE.get(a.type, a.type)} {a.name}" + (f" = {a.default}" if a.default else ""))
    if out:
        parts += ([] if kw else ["*"]) + ["Tensor out = None"]
    return f"{name}({', '.join(parts)})"


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def binding_code(op: Op, kind: str, pub: str, read: dict[str, str], sig) -> str:
    """The C++ lines that handle the deprecated order in op's binding of this kind ('' when there is none)."""
    order = op.entry.get("deprecated_order")
    if not order or kind not in ("function", "method", "inplace"):
        return ""
    by_name = {a.name: a for a in op.args}
    if sorted(order) != sorted(by_name):
        raise ValueError(f"{op.name}: deprecated_order {order} must name each argument of the schema once")
    method = kind != "function"
    current = op.args[1:] if method else op.args
    # every argument positional and required; the tensor the op is called on a Tensor (no Python number)
    old = [dataclasses.replace(by_name[n], kwonly=False, default=None,
                               type="Tensor" if by_name[n] is op.args[0] and op.args[0].is_tensor else by_name[n].type)
           for n in order]
    old = old[1:] if method else old
    out = kind == "function" and "out" in op.variants
    message = (f"This overload of {pub} is deprecated:\n\t{_torch_sig(pub, old, out)}\nConsider using one of the "
               f"following signatures instead:\n\t{_torch_sig(pub, current, out)}")
    position = {a.name: i for i, a in enumerate(old)}
    values = (["unwrap(self)"] if method else []) + [f"r.{read[a.type]}({position[a.name]})" for a in current]
    target = f"ad::{op.name}" + ("_" if kind == "inplace" else "")
    call = f"return wrap({target}({', '.join(values)}));"
    if out:
        k = len(old)
        call = (f"if (r.has({k})) return wrap(ad::{op.name}_out(r.tensor({k}), {', '.join(values)}));\n    " + call)
    return (f"  static ArgParser deprecated(\"{sig(pub, old, 'Tensor? out=None' if out else '')}\");\n"
            f"  if (nargs == {len(old)} && deprecated.accepts(args, nargs, kwnames)) {{  // all positional\n"
            f"    if (!deprecated_overload_warn({_c_string(message)})) return nullptr;\n"
            f"    ParsedArgs r;\n    deprecated.parse(args, nargs, kwnames, r);\n    {call}\n  }}\n")


def uses_deprecated(ops: list[Op]) -> bool:
    return any(o.entry.get("deprecated_order") for o in ops)
