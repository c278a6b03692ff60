"""Common Voice: a language's folder with train/dev/test/... .tsv files (client_id, path, sentence, ...) and
clips/<path>.mp3. Mozilla serves it only after sign-up, so there is no download."""
import csv
import os

from ._common import AudioDataset, load_audio


class COMMONVOICE(AudioDataset):
    """Items: (waveform, sample_rate, row) with row the tsv line as a dict of its header's fields."""

    _ext_audio = ".mp3"
    _folder_audio = "clips"

    def __init__(self, root, tsv="train.tsv"):
        self._path = os.fspath(root)
        tsv_path = os.path.join(self._path, tsv)
        if not os.path.isfile(tsv_path):
            raise RuntimeError(f"COMMONVOICE: {tsv_path} doesn't exist. Common Voice is downloaded by hand from "
                               "commonvoice.mozilla.org; pass the language folder holding the .tsv files and clips/")
        with open(tsv_path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
        if not rows or "path" not in rows[0]:
            raise RuntimeError(f"COMMONVOICE: {tsv_path} has no header with a 'path' column")
        self._header = rows[0]
        self._walker = rows[1:]

    def __getitem__(self, n):
        row = dict(zip(self._header, self._item_key(n)))
        name = row["path"] if row["path"].endswith(self._ext_audio) else row["path"] + self._ext_audio
        waveform, sample_rate = load_audio(self._path, self._folder_audio, name)
        return waveform, sample_rate, row
