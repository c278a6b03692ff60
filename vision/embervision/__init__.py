"""embervision: ember's vision package. The package exists so the workspace installs it; its features land with their issues."""
import ember as _ember

__version__ = "0.0.1"
ember_version = _ember.__version__
