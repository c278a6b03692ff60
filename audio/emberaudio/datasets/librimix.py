"""LibriMix: mixtures of LibriSpeech speakers (generated locally with the LibriMix scripts: there is no
archive to download): Libri<N>Mix/wav<8k|16k>/<min|max>/<subset>/<mix_*>/<id>.wav beside s1..sN."""
import os

from ._common import AudioDataset, load_audio

_TASKS = {"sep_clean": "mix_clean", "enh_single": "mix_single", "enh_both": "mix_both", "sep_noisy": "mix_both"}


class LibriMix(AudioDataset):
    """Items: (sample_rate, mixture, [source_1, ..., source_N]) with every waveform (1, frames)."""

    def __init__(self, root, subset="train-360", num_speakers=2, sample_rate=8000, task="sep_clean", mode="min"):
        if mode not in ("min", "max"):
            raise ValueError(f'Expect ``mode`` to be one in ["min", "max"]. Found {mode}.')
        if sample_rate not in (8000, 16000):
            raise ValueError(f"Unsupported sample rate. Found {sample_rate}.")
        if task not in _TASKS:
            raise ValueError(f"Unsupported task {task!r}: one of {list(_TASKS)}")
        self.root = os.path.join(os.fspath(root), f"Libri{num_speakers}Mix")
        mix_dir = os.path.join(self.root, f"wav{sample_rate // 1000}k", mode, subset)
        self.sample_rate, self.task = sample_rate, task
        self.mix_dir = os.path.join(mix_dir, _TASKS[task])
        if task == "enh_both":
            self.src_dirs = [os.path.join(mix_dir, "mix_clean")]
        else:
            self.src_dirs = [os.path.join(mix_dir, f"s{i + 1}") for i in range(num_speakers)]
        if not os.path.isdir(self.mix_dir):
            raise RuntimeError(f"LibriMix: {self.mix_dir} doesn't exist; generate the mixtures with the LibriMix "
                               "scripts (https://github.com/JorisCos/LibriMix) under root")
        self._walker = sorted(f for f in os.listdir(self.mix_dir) if f.endswith(".wav"))

    def _load(self, path):
        waveform, rate = load_audio(path)
        if rate != self.sample_rate:
            raise ValueError(f"sample rate should be {self.sample_rate}, but got {rate} in {path}")
        return waveform

    def __getitem__(self, n):
        name = self._item_key(n)
        mixed = self._load(os.path.join(self.mix_dir, name))
        sources = []
        for i, folder in enumerate(self.src_dirs):
            source = self._load(os.path.join(folder, name))
            if source.shape != mixed.shape:
                raise ValueError(f"Different waveform shapes. mixed: {mixed.shape}, src[{i}]: {source.shape}")
            sources.append(source)
        return self.sample_rate, mixed, sources
