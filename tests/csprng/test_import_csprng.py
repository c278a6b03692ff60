import importlib.metadata

import embercsprng


def test_imports_with_version():
    assert embercsprng.__version__ == importlib.metadata.version("embercsprng")
    assert embercsprng.ember_version == importlib.metadata.version("ember")
