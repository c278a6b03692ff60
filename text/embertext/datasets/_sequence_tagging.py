"""Sequence tagging: one list per column (words, then their tags) for each sentence."""

import glob
import os

from ..utils import extract_archive
from ._common import RawTextIterableDataset, fetch, read_iob, wrap_split_argument

_UDPOS_FILES = {"train": "train.txt", "valid": "dev.txt", "test": "test.txt"}


@wrap_split_argument(("train", "valid", "test"))
def UDPOS(root: str, split: str):
    """Universal Dependencies English POS tags (12,543/2,002/2,077 sentences). Yields [words, UD tags,
    PTB tags]."""
    archive = fetch(
        root,
        "https://bitbucket.org/sivareddyg/public/downloads/en-ud-v2.zip",
        "en-ud-v2.zip",
        "bdcac7c52d934656bae1699541424545",
    )

    def find():
        return sorted(glob.glob(os.path.join(root, "**", "*" + _UDPOS_FILES[split]), recursive=True))

    if not find():
        extract_archive(archive, root)
    if not find():
        raise RuntimeError(f"UDPOS: {archive} holds no file ending in {_UDPOS_FILES[split]}")
    located = find()[0]
    return RawTextIterableDataset(f"UDPOS {split}", lambda: read_iob(located, "\t"))


_CONLL = "https://www.clips.uantwerpen.be/conll2000/chunking/"
_CONLL_MD5 = {"train": "6969c2903a1f19a83569db643e43dcc8", "test": "a916e1c2d83eb3004b38fc6fcd628939"}


@wrap_split_argument(("train", "test"))
def CoNLL2000Chunking(root: str, split: str):
    """CoNLL-2000 chunking (8,936/2,012 sentences). Yields [words, POS tags, chunk tags]."""
    fetch(root, _CONLL + f"{split}.txt.gz", f"{split}.txt.gz", _CONLL_MD5[split], needed=[f"{split}.txt"])
    path = os.path.join(root, f"{split}.txt")
    return RawTextIterableDataset(f"CoNLL2000Chunking {split}", lambda: read_iob(path, " "))


__all__ = ["CoNLL2000Chunking", "UDPOS"]
