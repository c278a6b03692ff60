"""What scripted code may call that eager code runs too: annotate, is_scripting, and the ignore decorator."""
from __future__ import annotations


def annotate(the_type, the_value):
    """In eager code, the value itself; in scripted code, the value typed as the_type (for empty lists)."""
    return the_value


def is_scripting() -> bool:
    """False in eager code; scripted code compiles it to the constant True."""
    return False


def export(fn):
    """Marks a module method for scripting besides forward: ember.jit.script(module).NAME runs it compiled."""
    fn._ember_jit_export = True
    return fn


def unused(fn):
    """Leaves fn out of scripted code: a call compiles to a raise (fn's body is never compiled; the call's
    type is fn's return annotation, Tensor without one). Eager code calls fn as usual."""
    fn._ember_jit_unused = True
    return fn


def ignore(fn=None, *, drop: bool = False):
    """Leaves fn in Python: scripted code calls it through the interpreter (its arguments and result
    converted by their types; the result's type is fn's return annotation, Tensor without one). A graph that
    calls it cannot be saved. `@ignore(drop=True)` is `@unused`: the call compiles to a raise (and saves)."""
    if fn is None:
        return lambda f: ignore(f, drop=drop)
    if drop:
        return unused(fn)
    fn._ember_jit_ignore = True
    return fn
