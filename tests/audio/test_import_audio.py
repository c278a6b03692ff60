import importlib.metadata

import emberaudio


def test_imports_with_version():
    assert emberaudio.__version__ == importlib.metadata.version("emberaudio")
    assert emberaudio.ember_version == importlib.metadata.version("ember")
