"""LibriSpeech (read audiobooks, FLAC with one transcript file per chapter) and LibriTTS (its TTS re-cut: WAV
with original and normalised text per utterance), from openslr.org."""
import os

from ._common import AudioDataset, load_audio, read_first_line
from .utils import prepare

_SUBSETS = ["dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
            "train-other-500"]
_LIBRISPEECH_SHA256 = {
    "dev-clean": "76f87d090650617fca0cac8f88b9416e0ebf80350acb97b343a85fa903728ab3",
    "dev-other": "12661c48e8c3fe1de2c1caa4c3e135193bfb1811584f11f569dd12645aa84365",
    "test-clean": "39fde525e59672dc6d1551919b1478f724438a95aa55f874b576be21967e6c23",
    "test-other": "d09c181bba5cf717b3dee7d4d592af11a3ee3a09e08ae025c5506f6ebe961c29",
    "train-clean-100": "d4ddd1d5a6ab303066f14971d768ee43278a5f2a0aa43dc716b0e64ecbbbf6e2",
    "train-clean-360": "146a56496217e96c14334a160df97fffedd6e0a04e66b9c5af0d40be3c792ecf",
    "train-other-500": "ddb22f27f96ec163645d53215559df6aa36515f26e01dd70798188350adcb6d2",
}
_LIBRITTS_CHECKSUMS = {
    "dev-clean": "da0864e1bd26debed35da8a869dd5c04dfc27682921936de7cff9c8a254dbe1a",
    "dev-other": "d413eda26f3a152ac7c9cf3658ef85504dfb1b625296e5fa83727f5186cca79c",
    "test-clean": "234ea5b25859102a87024a4b9b86641f5b5aaaf1197335c95090cde04fe9a4f5",
    "test-other": "ae3258249472a13b5abef2a816f733e4",
    "train-clean-100": "4a8c202b78fe1bc0c47916a98f3a2ea8",
    "train-clean-360": "a84ef10ddade5fd25df69596a2767b2d",
    "train-other-500": "7b181dd5ace343a5f38427999684aa6f",
}


def _locate(root, url, base_url, folder_in_archive, checksums):
    """(url, archive path, dataset folder, checksum) for a subset name or a full URL."""
    checksum = checksums.get(url)
    if url in _SUBSETS:
        url = base_url + url + ".tar.gz"
    root = os.fspath(root)
    basename = os.path.basename(url)
    return url, os.path.join(root, basename), os.path.join(root, folder_in_archive, basename.split(".")[0]), checksum


def _walk(path, ext):
    """File ids of <path>/<speaker>/<chapter>/<id><ext>, sorted."""
    ids = []
    for speaker in os.listdir(path):
        for chapter in os.listdir(os.path.join(path, speaker)) if os.path.isdir(os.path.join(path, speaker)) else []:
            folder = os.path.join(path, speaker, chapter)
            if os.path.isdir(folder):
                ids.extend(f[: -len(ext)] for f in os.listdir(folder) if f.endswith(ext))
    return sorted(ids)


class LIBRISPEECH(AudioDataset):
    """Items: (waveform, sample_rate, transcript, speaker_id, chapter_id, utterance_id)."""

    _ext_txt = ".trans.txt"
    _ext_audio = ".flac"

    def __init__(self, root, url="train-clean-100", folder_in_archive="LibriSpeech", download=False):
        url, archive, self._path, checksum = _locate(root, url, "http://www.openslr.org/resources/12/",
                                                     folder_in_archive, _LIBRISPEECH_SHA256)
        prepare(self._path, url, archive, checksum, download, "LIBRISPEECH")
        self._walker = _walk(self._path, self._ext_audio)

    def __getitem__(self, n):
        fileid = self._item_key(n)
        speaker, chapter, utterance = fileid.split("-")
        folder = os.path.join(self._path, speaker, chapter)
        waveform, sample_rate = load_audio(folder, fileid + self._ext_audio)
        text_file = os.path.join(folder, f"{speaker}-{chapter}{self._ext_txt}")
        with open(text_file, encoding="utf-8") as f:
            for line in f:
                key, _, transcript = line.strip().partition(" ")
                if key == fileid:
                    break
            else:
                raise FileNotFoundError(f"Translation not found for {fileid} in {text_file}")
        return waveform, sample_rate, transcript, int(speaker), int(chapter), int(utterance)


class LIBRITTS(AudioDataset):
    """Items: (waveform, sample_rate, original_text, normalized_text, speaker_id, chapter_id, utterance_id)."""

    _ext_original_txt = ".original.txt"
    _ext_normalized_txt = ".normalized.txt"
    _ext_audio = ".wav"

    def __init__(self, root, url="train-clean-100", folder_in_archive="LibriTTS", download=False):
        url, archive, self._path, checksum = _locate(root, url, "http://www.openslr.org/resources/60/",
                                                     folder_in_archive, _LIBRITTS_CHECKSUMS)
        prepare(self._path, url, archive, checksum, download, "LIBRITTS")
        self._walker = _walk(self._path, self._ext_audio)

    def __getitem__(self, n):
        fileid = self._item_key(n)
        speaker, chapter, _, _ = fileid.split("_")
        folder = os.path.join(self._path, speaker, chapter)
        waveform, sample_rate = load_audio(folder, fileid + self._ext_audio)
        original = read_first_line(os.path.join(folder, fileid + self._ext_original_txt))
        normalized = read_first_line(os.path.join(folder, fileid + self._ext_normalized_txt))
        return waveform, sample_rate, original, normalized, int(speaker), int(chapter), fileid
