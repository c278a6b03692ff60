"""TED-LIUM releases 1-3: talks as NIST SPHERE files (sph/) with segment transcripts (stm/: "talk channel
speaker start end <label> text" lines); each stm line is an item, cut from its talk."""
import os

from ._common import AudioDataset, load_audio

from .utils import prepare

_RELEASES = {
    "release1": ("TEDLIUM_release1", "http://www.openslr.org/resources/7/TEDLIUM_release1.tar.gz",
                 "30301975fd8c5cac4040c261c0852f57cfa8adbbad2ce78e77e4986957445f27", "TEDLIUM.150K.dic"),
    "release2": ("TEDLIUM_release2", "http://www.openslr.org/resources/19/TEDLIUM_release2.tar.gz",
                 "93281b5fcaaae5c88671c9d000b443cb3c7ea3499ad12010b3934ca41a7b9c58", "TEDLIUM.152k.dic"),
    "release3": ("TEDLIUM_release-3", "http://www.openslr.org/resources/51/TEDLIUM_release-3.tgz",
                 "ad1e454d14d1ad550bc2564c462d87c7a7ec83d4dc2b9210f22ab4973b9eccdb", "TEDLIUM.152k.dic"),
}


class TEDLIUM(AudioDataset):
    """Items: (waveform, sample_rate, transcript, talk_id, speaker_id, identifier); the waveform spans the
    segment's start..end seconds."""

    def __init__(self, root, release="release1", subset="train", download=False, audio_ext=".sph"):
        if release not in _RELEASES:
            raise RuntimeError(f"The release {release} does not match any of the supported tedlium releases "
                               f"{list(_RELEASES)}")
        subset = subset or "train"
        if subset not in ("train", "dev", "test"):
            raise RuntimeError(f"The subset {subset} does not match any of the supported tedlium subsets "
                               f"['train', 'test', 'dev']")
        folder, url, checksum, self._dict_name = _RELEASES[release]
        root = os.fspath(root)
        if release == "release3":
            self._path = os.path.join(root, folder, "data" if subset == "train" else os.path.join("legacy", subset))
        else:
            self._path = os.path.join(root, folder, subset)
        prepare(self._path, url, os.path.join(root, os.path.basename(url)), checksum, download, "TEDLIUM")
        self._ext_audio = audio_ext
        self._dict_path = os.path.join(root, folder, self._dict_name)
        self._walker = []
        stm_dir = os.path.join(self._path, "stm")
        for name in sorted(f for f in os.listdir(stm_dir) if f.endswith(".stm")):
            with open(os.path.join(stm_dir, name), encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        self._walker.append((name[:-4], line.rstrip("\n")))
        self._phoneme_dict = None

    def _load_audio(self, path, start_time, end_time, sample_rate=16000):
        start, end = int(float(start_time) * sample_rate), int(float(end_time) * sample_rate)
        if end <= start:
            raise RuntimeError(f"TEDLIUM: segment {start_time}..{end_time} s of {path} is empty")
        return load_audio(path, frame_offset=start, num_frames=end - start)

    def __getitem__(self, n):
        fileid, line = self._item_key(n)
        parts = line.split(" ", 6)
        if len(parts) != 7:
            raise RuntimeError(f"TEDLIUM: malformed stm line in {fileid}.stm: {line!r}")
        talk_id, _, speaker_id, start, end, identifier, transcript = parts
        waveform, sample_rate = self._load_audio(os.path.join(self._path, "sph", fileid + self._ext_audio), start, end)
        return waveform, sample_rate, transcript, talk_id, speaker_id, identifier

    @property
    def phoneme_dict(self):
        """word -> tuple of phonemes, from the release's dictionary file."""
        if self._phoneme_dict is None:
            self._phoneme_dict = {}
            with open(self._dict_path, encoding="utf-8") as f:
                for line in f:
                    content = line.strip().split()
                    if content:
                        self._phoneme_dict[content[0]] = tuple(content[1:])
        return dict(self._phoneme_dict)
