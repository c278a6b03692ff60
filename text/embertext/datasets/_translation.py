"""Translation corpora: (source sentence, target sentence) pairs."""

import io
import os
import xml.etree.ElementTree as ET
from typing import Sequence

from ..utils import extract_archive
from ._common import RawTextIterableDataset, fetch, read_lines, wrap_split_argument

_MULTI30K = "http://www.quest.dcs.shef.ac.uk/wmt16_files_mmt/"
_MULTI30K_FILES = {
    "train": ("training.tar.gz", "20140d013d05dd9a72dfde46478663ba05737ce983f478f960c1123c6671be5e", "train"),
    "valid": ("validation.tar.gz", "a7aa20e9ebd5ba5adce7909498b94410996040857154dab029851af3a866da8c", "val"),
    "test": ("mmt16_task1_test.tar.gz", "0681be16a532912288a91ddd573594fbdd57c0fbb81486eff7c55247e35326c2", "test"),
}


def _pairs(src_path: str, tgt_path: str, strip_newline: bool):
    yield from zip(read_lines(src_path, strip_newline), read_lines(tgt_path, strip_newline))


@wrap_split_argument(("train", "valid", "test"))
def Multi30k(root: str, split: str, language_pair: Sequence[str] = ("de", "en")):
    """Multi30k task 1 (29,000/1,014/1,000 pairs), German and English. Yields (source, target)."""
    if len(language_pair) != 2 or tuple(sorted(language_pair)) != ("de", "en"):
        raise ValueError(f"Multi30k: language_pair must be ('de', 'en') or ('en', 'de'), got {language_pair}")
    archive, sha256, prefix = _MULTI30K_FILES[split]
    names = [f"{prefix}.{lang}" for lang in language_pair]
    fetch(root, _MULTI30K + archive, archive, sha256, hash_type="sha256", needed=names)
    src, tgt = (os.path.join(root, n) for n in names)
    return RawTextIterableDataset(f"Multi30k {split}", lambda: _pairs(src, tgt, strip_newline=True))


_TAGS = (
    "<url",
    "<keywords",
    "<talkid",
    "<description",
    "<reviewer",
    "<translator",
    "<title",
    "<speaker",
    "<doc",
    "</doc",
)


def _clean(raw: str, out: str) -> None:
    """IWSLT's raw files to one sentence a line: the <seg>s of an XML set, or a tags file without its
    metadata lines."""
    with io.open(out, "w", encoding="utf-8") as dest:
        if raw.endswith(".xml"):
            root = ET.parse(raw).getroot()[0]
            for doc in root.findall("doc"):
                for seg in doc.findall("seg"):
                    dest.write(seg.text.strip() + "\n")
        else:
            with io.open(raw, encoding="utf-8") as src:
                for line in src:
                    if not any(tag in line for tag in _TAGS):
                        dest.write(line.strip() + "\n")


def _iwslt(
    name: str,
    year: int,
    drive_id: str,
    archive: str,
    md5: str,
    pairs: dict,
    sets: tuple,
    missing: dict,
    inner: str,
    doc: str,
):
    def dataset(
        root: str,
        split: str,
        language_pair: Sequence[str] = ("de", "en"),
        valid_set: str = sets[-2],
        test_set: str = sets[-1],
    ):
        if not isinstance(language_pair, (list, tuple)) or len(language_pair) != 2:
            raise ValueError(f"{name}: language_pair must be a (source, target) pair, got {language_pair!r}")
        src, tgt = language_pair
        if src not in pairs:
            raise ValueError(f"{name}: src_language '{src}' is not valid; supported: {sorted(pairs)}")
        if tgt not in pairs[src]:
            raise ValueError(
                f"{name}: tgt_language '{tgt}' is not valid for src_language '{src}'; supported: {pairs[src]}"
            )
        allowed = [s for s in sets if s not in missing.get((src, tgt), ())]
        for what, chosen in (("valid_set", valid_set), ("test_set", test_set)):
            if chosen not in allowed:
                raise ValueError(f"{name}: {what} '{chosen}' is not valid for {language_pair}; supported: {allowed}")
        fetch(root, "https://drive.google.com/uc?id=" + drive_id, archive, md5)
        pair_dir = os.path.join(root, inner.format(src=src, tgt=tgt))
        pair_tgz = pair_dir + ".tgz"
        if not os.path.exists(pair_tgz):
            extract_archive(os.path.join(root, archive), root)
        if not os.path.isdir(pair_dir):
            extract_archive(pair_tgz, os.path.dirname(pair_tgz))
        eval_set = {"valid": valid_set, "test": test_set}.get(split)
        paths = []
        for lang in (src, tgt):
            clean = (
                f"train.{src}-{tgt}.{lang}" if split == "train" else f"IWSLT{year}.TED.{eval_set}.{src}-{tgt}.{lang}"
            )
            raw = f"train.tags.{src}-{tgt}.{lang}" if split == "train" else clean + ".xml"
            out = os.path.join(pair_dir, clean)
            if not os.path.exists(out):
                if not os.path.exists(os.path.join(pair_dir, raw)):
                    raise RuntimeError(f"{name}: {pair_tgz} holds no {raw}")
                _clean(os.path.join(pair_dir, raw), out)
            paths.append(out)
        return RawTextIterableDataset(f"{name} {split}", lambda: _pairs(*paths, strip_newline=False))

    dataset.__name__ = dataset.__qualname__ = name
    dataset.__doc__ = doc + " Yields (source, target) lines with their newlines; splits 'train', 'valid', 'test'."
    return wrap_split_argument(("train", "valid", "test"))(dataset)


IWSLT2016 = _iwslt(
    "IWSLT2016",
    16,
    "1l5y6Giag9aRPwGtuZHswh3w5v3qEz8D8",
    "2016-01.tgz",
    "c393ed3fc2a1b0f004b3331043f615ae",
    {"en": ["ar", "de", "fr", "cs"], "ar": ["en"], "fr": ["en"], "de": ["en"], "cs": ["en"]},
    ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014"),
    {("en", "cs"): ("tst2014",), ("cs", "en"): ("tst2014",)},
    os.path.join("2016-01", "texts", "{src}", "{tgt}", "{src}-{tgt}"),
    "IWSLT 2016 TED talks.",
)
IWSLT2017 = _iwslt(
    "IWSLT2017",
    17,
    "12ycYSzLIG253AFN35Y6qoyf9wtkOjakp",
    "2017-01-trnmted.tgz",
    "aca701032b1c4411afc4d9fa367796ba",
    {
        "en": ["nl", "de", "it", "ro"],
        "ro": ["de", "en", "nl", "it"],
        "de": ["ro", "en", "nl", "it"],
        "it": ["en", "nl", "de", "ro"],
        "nl": ["de", "en", "it", "ro"],
    },
    ("dev2010", "tst2010"),
    {},
    os.path.join("2017-01-trnmted", "texts", "DeEnItNlRo", "DeEnItNlRo", "DeEnItNlRo-DeEnItNlRo"),
    "IWSLT 2017 multilingual TED talks (German, English, Italian, Dutch, Romanian).",
)

__all__ = ["IWSLT2016", "IWSLT2017", "Multi30k"]
