import importlib.metadata

import embertext


def test_imports_with_version():
    assert embertext.__version__ == importlib.metadata.version("embertext")
    assert embertext.ember_version == importlib.metadata.version("ember")
