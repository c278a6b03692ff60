"""CMU ARCTIC: 18 voices reading the same ~1,130 prompts; etc/txt.done.data holds
`( arctic_a0001 "Author of the danger trail, Philip Steels, etc." )` lines."""
import os
import re

from ._common import AudioDataset, load_audio
from .utils import prepare

_BASE = "http://festvox.org/cmu_arctic/packed/"
_SHA256 = {
    "aew": "645cb33c0f0b2ce41384fdd8d3db2c3f5fc15c1e688baeb74d2e08cab18ab406",
    "ahw": "024664adeb892809d646a3efd043625b46b5bfa3e6189b3500b2d0d59dfab06c",
    "aup": "2c55bc3050caa996758869126ad10cf42e1441212111db034b3a45189c18b6fc",
    "awb": "d74a950c9739a65f7bfc4dfa6187f2730fa03de5b8eb3f2da97a51b74df64d3c",
    "axb": "dd65c3d2907d1ee52f86e44f578319159e60f4bf722a9142be01161d84e330ff",
    "bdl": "26b91aaf48b2799b2956792b4632c2f926cd0542f402b5452d5adecb60942904",
    "clb": "3f16dc3f3b97955ea22623efb33b444341013fc660677b2e170efdcc959fa7c6",
    "eey": "8a0ee4e5acbd4b2f61a4fb947c1730ab3adcc9dc50b195981d99391d29928e8a",
    "fem": "3fcff629412b57233589cdb058f730594a62c4f3a75c20de14afe06621ef45e2",
    "gka": "dc82e7967cbd5eddbed33074b0699128dbd4482b41711916d58103707e38c67f",
    "jmk": "3a37c0e1dfc91e734fdbc88b562d9e2ebca621772402cdc693bbc9b09b211d73",
    "ksp": "8029cafce8296f9bed3022c44ef1e7953332b6bf6943c14b929f468122532717",
    "ljm": "b23993765cbf2b9e7bbc3c85b6c56eaf292ac81ee4bb887b638a24d104f921a0",
    "lnh": "4faf34d71aa7112813252fb20c5433e2fdd9a9de55a00701ffcbf05f24a5991a",
    "rms": "c6dc11235629c58441c071a7ba8a2d067903dfefbaabc4056d87da35b72ecda4",
    "rxr": "1fa4271c393e5998d200e56c102ff46fcfea169aaa2148ad9e9469616fbfdd9b",
    "slp": "54345ed55e45c23d419e9a823eef427f1cc93c83a710735ec667d068c916abf1",
    "slt": "7c173297916acf3cc7fcab2713be4c60b27312316765a90934651d367226b4ea",
}
_LINE = re.compile(r'^\(\s*(\S+)\s+"(.*)"\s*\)\s*$')


class CMUARCTIC(AudioDataset):
    """Items: (waveform, sample_rate, transcript, utterance_id) with utterance_id like "a0001"."""

    def __init__(self, root, url="aew", folder_in_archive="ARCTIC", download=False):
        checksum = _SHA256.get(url)
        if url in _SHA256:
            url = f"{_BASE}cmu_us_{url}_arctic.tar.bz2"
        root = os.path.join(os.fspath(root), folder_in_archive)
        basename = os.path.basename(url)
        self._path = os.path.join(root, basename.split(".")[0])
        prepare(self._path, url, os.path.join(root, basename), checksum, download, "CMUARCTIC")
        text = os.path.join(self._path, "etc", "txt.done.data")
        self._walker = []
        with open(text, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                if not line.strip():
                    continue
                match = _LINE.match(line.strip())
                if match is None:
                    raise RuntimeError(f"CMUARCTIC: {text}:{i} is not a ( id \"text\" ) line: {line.strip()!r}")
                self._walker.append(match.groups())

    def __getitem__(self, n):
        fileid, transcript = self._item_key(n)
        waveform, sample_rate = load_audio(self._path, "wav", fileid + ".wav")
        return waveform, sample_rate, transcript, fileid.split("_")[1]
