"""A small pytree: tuples, lists, dicts and named tuples are nodes, anything else a leaf. What the
function transforms need to map in_dims/out_dims, argnums and outputs over nested containers."""


def flatten(tree):
    """(leaves, spec): spec rebuilds the tree with unflatten(spec, leaves)."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return ("namedtuple", type(tree), [_flatten(x, leaves) for x in tree])
    if type(tree) in (tuple, list):
        return (type(tree), None, [_flatten(x, leaves) for x in tree])
    if type(tree) is dict:
        return (dict, list(tree), [_flatten(tree[k], leaves) for k in tree])
    leaves.append(tree)
    return None


def unflatten(spec, leaves):
    it = iter(leaves)
    return _unflatten(spec, it)


def _unflatten(spec, it):
    if spec is None:
        return next(it)
    kind, extra, children = spec
    values = [_unflatten(c, it) for c in children]
    if kind == "namedtuple":
        return extra(*values)
    if kind is dict:
        return dict(zip(extra, values))
    return kind(values)


def describe(spec):
    """PyTorch-like text of a structure for error messages: * for a leaf."""
    if spec is None:
        return "*"
    kind, extra, children = spec
    name = extra.__name__ if kind == "namedtuple" else kind.__name__
    return f"TreeSpec({name}, {extra if kind is dict else None}, [{', '.join(describe(c) for c in children)}])"


def broadcast_prefix(prefix, tree, is_leaf_value):
    """The leaves of `prefix` spread over the leaves of `tree` (a prefix leaf covers a whole subtree),
    or None when the structures do not match."""
    out = []
    if _broadcast(prefix, tree, is_leaf_value, out):
        return out
    return None


def _broadcast(prefix, tree, is_leaf_value, out):
    if is_leaf_value(prefix):
        out.extend([prefix] * len(flatten(tree)[0]))
        return True
    if type(prefix) in (tuple, list) and isinstance(tree, (tuple, list)) and len(prefix) == len(tree):
        return all(_broadcast(p, t, is_leaf_value, out) for p, t in zip(prefix, tree))
    if type(prefix) is dict and type(tree) is dict and set(prefix) == set(tree):
        return all(_broadcast(prefix[k], tree[k], is_leaf_value, out) for k in tree)
    return False
