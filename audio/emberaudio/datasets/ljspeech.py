"""LJSpeech 1.1: one speaker, 13,100 clips; metadata.csv is "id|transcript|normalized transcript" without
quoting."""
import csv
import os

from ._common import AudioDataset, load_audio
from .utils import prepare

_URL = "https://data.keithito.com/data/speech/LJSpeech-1.1.tar.bz2"
_CHECKSUMS = {_URL: "be1a30453f28eb8dd26af4101ae40cbf2c50413b1bb21936cbcdc6fae3de8aa5"}


class LJSPEECH(AudioDataset):
    """Items: (waveform, sample_rate, transcript, normalized_transcript)."""

    def __init__(self, root, url=_URL, folder_in_archive="wavs", download=False):
        root = os.fspath(root)
        self._path = os.path.join(root, "LJSpeech-1.1")
        prepare(self._path, url, os.path.join(root, os.path.basename(url)), _CHECKSUMS.get(url), download,
                "LJSPEECH")
        self._wav_dir = os.path.join(self._path, folder_in_archive)
        with open(os.path.join(self._path, "metadata.csv"), newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f, delimiter="|", quoting=csv.QUOTE_NONE))
        for i, row in enumerate(rows, 1):
            if len(row) != 3:
                raise RuntimeError(f"LJSPEECH: metadata.csv line {i} has {len(row)} fields, expected 3")
        self._walker = rows

    def __getitem__(self, n):
        fileid, transcript, normalized = self._item_key(n)
        waveform, sample_rate = load_audio(self._wav_dir, fileid + ".wav")
        return waveform, sample_rate, transcript, normalized
