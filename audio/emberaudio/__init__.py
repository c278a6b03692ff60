"""emberaudio: ember's audio package. The package exists so the workspace installs it; its features land
with their issues."""

import ember as _ember

from ._version import __version__  # noqa: F401
ember_version = _ember.__version__
