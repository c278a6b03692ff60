"""emberaudio: torchaudio's API on ember: audio I/O (soundfile), signal-processing functionals and
transforms."""
import ember as _ember

from . import _C  # noqa: F401  (loading it registers audio's ops: ember.ops.audio)
from . import compliance, datasets, functional, io, models, sox_effects, transforms  # noqa: F401
from ._io import AudioMetaData, get_audio_backend, info, list_audio_backends, load, save, set_audio_backend  # noqa: F401
from ._version import __version__  # noqa: F401

ember_version = _ember.__version__
