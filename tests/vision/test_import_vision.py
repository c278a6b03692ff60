import importlib.metadata

import embervision


def test_imports_with_version():
    assert embervision.__version__ == importlib.metadata.version("embervision")
    assert embervision.ember_version == importlib.metadata.version("ember")
