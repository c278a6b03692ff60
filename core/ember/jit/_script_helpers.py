"""What scripted code may call that eager code runs too: annotate and is_scripting."""
from __future__ import annotations


def annotate(the_type, the_value):
    """In eager code, the value itself; in scripted code, the value typed as the_type (for empty lists)."""
    return the_value


def is_scripting() -> bool:
    """False in eager code; scripted code compiles it to the constant True."""
    return False
