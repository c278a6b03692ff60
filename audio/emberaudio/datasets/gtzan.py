"""GTZAN: 1,000 thirty-second music clips in ten genres, genres/<genre>/<genre>.000NN.wav."""
import os

from ._common import AudioDataset, load_audio
from .utils import prepare

_URL = "http://opihi.cs.uvic.ca/sound/genres.tar.gz"
_CHECKSUMS = {_URL: "5b3d6dddb579ab49814ab86dba69e7c7"}
GENRES = ["blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae", "rock"]


class GTZAN(AudioDataset):
    """Items: (waveform, sample_rate, label). Only subset=None: torchaudio's "training"/"validation"/"testing"
    come from the filtered split lists of Kereliuk et al., which are not bundled here."""

    def __init__(self, root, url=_URL, folder_in_archive="genres", download=False, subset=None):
        if subset is not None:
            raise ValueError("GTZAN: only subset=None is available (the filtered split lists are not bundled)")
        root = os.fspath(root)
        self._path = os.path.join(root, folder_in_archive)
        prepare(self._path, url, os.path.join(root, os.path.basename(url)), _CHECKSUMS.get(url), download, "GTZAN")
        self._walker = []
        for genre in GENRES:
            folder = os.path.join(self._path, genre)
            if os.path.isdir(folder):
                self._walker.extend(sorted(f[:-4] for f in os.listdir(folder)
                                           if f.startswith(genre + ".") and f.endswith(".wav")))

    def __getitem__(self, n):
        fileid = self._item_key(n)
        genre = fileid.split(".")[0]
        waveform, sample_rate = load_audio(self._path, genre, fileid + ".wav")
        return waveform, sample_rate, genre
