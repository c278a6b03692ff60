"""Helpers the importers share: reading a source model's state dict and config, loading the mapped weights."""
import ast
import operator


def state_dict_of(original):
    """A module's state_dict() or a mapping of name -> tensor (as from a checkpoint file)."""
    if hasattr(original, "state_dict"):
        return dict(original.state_dict())
    if isinstance(original, dict):
        return dict(original)
    raise TypeError(f"expected a module or a state dict (name -> tensor), got {type(original).__name__}")


def config_value(config, name):
    if isinstance(config, dict):
        if name not in config:
            raise KeyError(f"the source model's config has no {name!r}")
        return config[name]
    if not hasattr(config, name):
        raise KeyError(f"the source model's config has no {name!r}")
    return getattr(config, name)


_OPS = {ast.Add: operator.add, ast.Mult: operator.mul}


def literal_arith(text):
    """Evaluates fairseq's conv_feature_layers string ("[(512, 10, 5)] + [(512, 3, 2)] * 4 ...") allowing only
    literals, + and *; no eval()."""

    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [walk(e) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        raise ValueError(f"unsupported expression in conv_feature_layers: {text!r}")

    return walk(ast.parse(text, mode="eval"))


def load_mapped(model, mapped):
    """Loads `mapped` into `model`, naming any parameter the source lacked or had in excess."""
    expected = set(model.state_dict().keys())
    missing = sorted(expected - set(mapped))
    unexpected = sorted(set(mapped) - expected)
    if missing or unexpected:
        raise RuntimeError(f"the source state dict does not match the model: missing {missing[:8]}"
                           f"{' ...' if len(missing) > 8 else ''}, unexpected {unexpected[:8]}"
                           f"{' ...' if len(unexpected) > 8 else ''}")
    model.load_state_dict(mapped)
    return model
