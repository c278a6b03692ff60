"""TorchScript's implicit conversions of a Tensor to a number in scripted calls: a Tensor passed where an op or a
scripted function takes an int, float or Scalar (x.view(t), ember.full((2,), t), x.narrow(0, t, 1)) is converted at
run time by prim::IntImplicit/FloatImplicit/ScalarImplicit (core/csrc/jit/prims_implicit.cpp: 0-dim only, integral
for an int, PyTorch's messages); t.item() is a number of a kind known at run time only, which an op takes for a
Scalar (x + t.item()). Ints given one by one for an int[] (x.view(n, -1)) are packed into the list."""
from __future__ import annotations

import ast

from . import _ops
from . import _types as T
from ._compiler import SValue


class ImplicitNumbers:
    def pack_int_varargs(self, positional: list, args: list[SValue], implicit: bool = False) -> list[SValue]:
        """x.permute(0, 2, 3, 1), x.view(n, -1): ints given one by one where the schema's last required
        argument is an int[] (the ones after it have defaults), packed into that list as TorchScript does."""
        k = next((i for i, a in enumerate(positional) if a.type == "int[]"), None)
        if k is None or len(args) <= k + 1 or any(a.default is _ops._NO_DEFAULT for a in positional[k + 1:]):
            return args
        ok = (T.INT, T.TENSOR) if implicit else (T.INT,)
        if not all(isinstance(v, SValue) and v.type in ok for v in args[k:]):
            return args
        items = [self.emit1("prim::IntImplicit", [v], T.INT) if v.type == T.TENSOR else v for v in args[k:]]
        return list(args[:k]) + [self.emit1("prim::ListConstruct", items, T.list_of(T.INT))]

    def implicit_number(self, schema_type: str, v: SValue) -> SValue | None:
        """A Tensor passed for a schema's int, float, Scalar (or an int[] given one int), converted at run time by
        TorchScript's rules (0-dim only; integral for an int); None for other argument types."""
        base = schema_type.rstrip("?")
        if base == "int" or (base == "int[]" and not schema_type.endswith("?")):
            n = self.emit1("prim::IntImplicit", [v], T.INT)
            return n if base != "int[]" else self.emit1("prim::ListConstruct", [n], T.list_of(T.INT))
        if base == "float":
            return self.emit1("prim::FloatImplicit", [v], T.FLOAT)
        if base == "Scalar":  # the number keeps the tensor's kind (int, float, bool), known at run time only
            return self.emit1("prim::ScalarImplicit", [v], T.ANY)
        return None

    def item_unsupported(self, node: ast.AST):
        """t.item() used other than as an op's Scalar argument: its number type would be needed when compiling."""
        return self.unsupported("Tensor.item() whose number type is not given (write int(t.item()), "
                                "float(t.item()) or bool(t.item()): a value's type is fixed when compiling)", node)
