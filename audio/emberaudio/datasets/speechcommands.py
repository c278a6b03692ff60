"""Speech Commands (v0.01 / v0.02): one-second words in <label>/<speaker>_nohash_<n>.wav, with validation and
testing lists; background noise clips are not items."""
import os

from ._common import AudioDataset, load_audio
from .utils import prepare

_BASE = "https://storage.googleapis.com/download.tensorflow.org/data/"
_CHECKSUMS = {_BASE + "speech_commands_v0.01.tar.gz": "3cd23799cb2bbdec517f1cc028f8d43c",
              _BASE + "speech_commands_v0.02.tar.gz": "6b74f3901214cb2c2934e98196829835"}
_NOISE = "_background_noise_"


def _read_list(path):
    with open(path, encoding="utf-8") as f:
        return {os.path.normpath(line.strip()) for line in f if line.strip()}


class SPEECHCOMMANDS(AudioDataset):
    """Items: (waveform, sample_rate, label, speaker_id, utterance_number). subset: None (everything),
    "training" (neither list), "validation" or "testing"."""

    def __init__(self, root, url="speech_commands_v0.02", folder_in_archive="SpeechCommands", download=False,
                 subset=None):
        if subset not in (None, "training", "validation", "testing"):
            raise ValueError(f"subset must be None, 'training', 'validation' or 'testing', got {subset!r}")
        if url in ("speech_commands_v0.01", "speech_commands_v0.02"):
            url = _BASE + url + ".tar.gz"
        root = os.fspath(root)
        basename = os.path.basename(url)
        self._path = os.path.join(root, folder_in_archive, basename.rsplit(".", 2)[0])
        # the archive has no top folder: it unpacks into the dataset folder itself
        prepare(self._path, url, os.path.join(root, basename), _CHECKSUMS.get(url), download, "SPEECHCOMMANDS",
                extract_to=self._path)
        files = []
        for label in sorted(os.listdir(self._path)):
            folder = os.path.join(self._path, label)
            if label == _NOISE or not os.path.isdir(folder):
                continue
            files.extend(os.path.join(label, f) for f in sorted(os.listdir(folder)) if f.endswith(".wav"))
        if subset == "validation" or subset == "testing":
            keep = _read_list(os.path.join(self._path, f"{subset}_list.txt"))
            files = [f for f in files if os.path.normpath(f) in keep]
        elif subset == "training":
            drop = _read_list(os.path.join(self._path, "validation_list.txt")) | _read_list(
                os.path.join(self._path, "testing_list.txt"))
            files = [f for f in files if os.path.normpath(f) not in drop]
        self._walker = files

    def __getitem__(self, n):
        relpath = self._item_key(n)
        label, filename = os.path.split(relpath)
        speaker, _, number = os.path.splitext(filename)[0].split("_")
        waveform, sample_rate = load_audio(self._path, relpath)
        return waveform, sample_rate, label, speaker, int(number)
