"""YESNO: 60 recordings of eight Hebrew yes/no words; the file name is the label sequence (0_1_1_0...)."""
import os

from ._common import AudioDataset, load_audio
from .utils import prepare

_URL = "http://www.openslr.org/resources/1/waves_yesno.tar.gz"
_CHECKSUMS = {_URL: "962ff6e904d2df1126132ecec6978786"}


class YESNO(AudioDataset):
    """Items: (waveform, sample_rate, labels) with labels a list of eight ints (1 = yes)."""

    def __init__(self, root, url=_URL, folder_in_archive="waves_yesno", download=False):
        root = os.fspath(root)
        self._path = os.path.join(root, folder_in_archive)
        prepare(self._path, url, os.path.join(root, os.path.basename(url)), _CHECKSUMS.get(url), download, "YESNO")
        self._walker = sorted(f[:-4] for f in os.listdir(self._path) if f.endswith(".wav"))

    def __getitem__(self, n):
        fileid = self._item_key(n)
        waveform, sample_rate = load_audio(self._path, fileid + ".wav")
        return waveform, sample_rate, [int(c) for c in fileid.split("_")]
