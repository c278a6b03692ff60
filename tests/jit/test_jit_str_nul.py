"""strs cross between Python and ember.jit whole: NUL characters included, lone surrogates refused with Python's
UnicodeEncodeError (as str.encode('utf-8') refuses them) rather than a crash."""

import pytest

import ember


def test_nul_survives_a_scripted_function():
    @ember.jit.script
    def join(a: str, b: str) -> str:
        return a + "\x00" + b

    assert join("x\x00y", "z") == "x\x00y\x00z"
    assert join("é", "") == "é\x00"


def test_lone_surrogate_raises():
    @ember.jit.script
    def same(a: str) -> str:
        return a

    with pytest.raises(UnicodeEncodeError):
        same("a\ud800")
