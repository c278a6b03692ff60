"""emberaudio.datasets: torchaudio's speech and music datasets, reading each corpus' own layout, with their
download code (checksums, resumable downloads, progress bar) where the corpus is openly served."""
from .cmuarctic import CMUARCTIC
from .commonvoice import COMMONVOICE
from .gtzan import GTZAN
from .librimix import LibriMix
from .librispeech import LIBRISPEECH, LIBRITTS
from .ljspeech import LJSPEECH
from .speechcommands import SPEECHCOMMANDS
from .tedlium import TEDLIUM
from .vctk import VCTK_092
from .yesno import YESNO

__all__ = ["YESNO", "LIBRISPEECH", "LIBRITTS", "SPEECHCOMMANDS", "VCTK_092", "LJSPEECH", "GTZAN", "CMUARCTIC",
           "COMMONVOICE", "TEDLIUM", "LibriMix"]
