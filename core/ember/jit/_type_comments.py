"""Signature type comments (`# type: (Tensor, int) -> Tensor` under the def line, or one `# type: int`
per argument line), which TorchScript reads when a function has no annotations at all. A method's
comment leaves out self, as TorchScript's does."""
from __future__ import annotations

import ast
import typing

_TYPING_NAMES = ("Any", "Dict", "List", "NamedTuple", "Optional", "Tuple", "Union")


def _environment(fn, extra: dict) -> dict:
    import ember

    env = {name: getattr(typing, name) for name in _TYPING_NAMES}
    env.update(ember=ember, Tensor=ember.Tensor, typing=typing)
    env.update(extra)
    return env


def _evaluate(node: ast.expr, env: dict, where: str):
    try:
        return eval(compile(ast.Expression(node), where, "eval"), env)
    except Exception as e:  # a name the comment uses that is not defined
        raise ValueError(f"cannot evaluate the type comment '{ast.unparse(node)}': {e}") from None


def hints_from_type_comments(fn, source: str, names: dict) -> dict | None:
    """The hints (as typing.get_type_hints gives them) that fn's type comments declare, or None when it has
    none. `source` is fn's dedented source; `names` its globals and closure variables."""
    if "# type:" not in source:
        return None
    try:
        def_ = ast.parse(source, type_comments=True).body[0]
    except SyntaxError:  # a `# type:` comment where Python's grammar allows none: not a signature
        return None
    if not isinstance(def_, ast.FunctionDef):
        return None
    params = def_.args.posonlyargs + def_.args.args + def_.args.kwonlyargs
    env, where = _environment(fn, names), f"<type comment of {fn.__qualname__}>"
    hints: dict = {}
    if def_.type_comment:
        try:
            signature = ast.parse(def_.type_comment, mode="func_type")
        except SyntaxError:
            raise ValueError(f"expected a type comment '(types) -> type', got '{def_.type_comment}'") from None
        if [ast.unparse(a) for a in signature.argtypes] == ["..."]:  # `(...) -> R`: the arguments commented one by one
            signature.argtypes = [None] * len(params)
        typed = params[1:] if params and params[0].arg == "self" and len(signature.argtypes) == len(params) - 1 \
            else params
        if len(signature.argtypes) != len(typed):
            raise ValueError(f"Number of type annotations ({len(signature.argtypes)}) did not match the number "
                             f"of function parameters ({len(typed)})")
        for arg, node in zip(typed, signature.argtypes):
            if node is not None:
                hints[arg.arg] = _evaluate(node, env, where)
        hints["return"] = _evaluate(signature.returns, env, where)
    for arg in params:
        if arg.type_comment:
            hints[arg.arg] = _evaluate(ast.parse(arg.type_comment, mode="eval").body, env, where)
    return hints or None
