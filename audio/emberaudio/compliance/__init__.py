"""emberaudio.compliance: feature extraction matching other toolkits (kaldi)."""
from . import kaldi  # noqa: F401
