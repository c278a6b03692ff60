"""VCTK 0.92: 110 speakers reading newspaper sentences, FLAC per microphone
(wav48_silence_trimmed/<spk>/<spk>_<utt>_<mic>.flac) and text (txt/<spk>/<spk>_<utt>.txt)."""
import os

from ._common import AudioDataset, load_audio, read_first_line
from .utils import prepare

_URL = "https://datashare.is.ed.ac.uk/bitstream/handle/10283/3443/VCTK-Corpus-0.92.zip"
_CHECKSUMS = {_URL: "f96258be9fdc2cbff6559541aae7ea4f59df3fcaf5cf963aae5ca647357e359c"}


class VCTK_092(AudioDataset):
    """Items: (waveform, sample_rate, transcript, speaker_id, utterance_id). Utterances without text (all of
    p315) or without a recording from `mic_id` are left out."""

    def __init__(self, root, mic_id="mic2", download=False, url=_URL, audio_ext=".flac"):
        if mic_id not in ("mic1", "mic2"):
            raise RuntimeError(f'`mic_id` has to be either "mic1" or "mic2". Found: {mic_id}')
        root = os.fspath(root)
        self._path = os.path.join(root, "VCTK-Corpus-0.92")
        prepare(self._path, url, os.path.join(root, os.path.basename(url)), _CHECKSUMS.get(url), download,
                "VCTK_092", extract_to=self._path)
        self._txt_dir = os.path.join(self._path, "txt")
        self._audio_dir = os.path.join(self._path, "wav48_silence_trimmed")
        self._mic_id, self._audio_ext = mic_id, audio_ext
        self._walker = []
        for speaker in sorted(os.listdir(self._txt_dir)):
            folder = os.path.join(self._txt_dir, speaker)
            for name in sorted(f for f in os.listdir(folder) if f.endswith(".txt")):
                utterance = name[:-4].split("_")[1]
                if os.path.isfile(self._audio_path(speaker, utterance)):
                    self._walker.append((speaker, utterance))

    def _audio_path(self, speaker, utterance):
        return os.path.join(self._audio_dir, speaker, f"{speaker}_{utterance}_{self._mic_id}{self._audio_ext}")

    def __getitem__(self, n):
        speaker, utterance = self._item_key(n)
        waveform, sample_rate = load_audio(self._audio_path(speaker, utterance))
        transcript = read_first_line(os.path.join(self._txt_dir, speaker, f"{speaker}_{utterance}.txt")).strip()
        return waveform, sample_rate, transcript, speaker, utterance
