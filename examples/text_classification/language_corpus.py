"""A language-identification corpus this machine has without a network: the translated messages of the
programs installed here (their gettext catalogs under /usr/share/locale), labelled with the catalog's
language. Placeholders (%s, {0}, ...) and keyboard accelerators are removed, duplicates dropped, and each
language is split 80/10/10 into train/valid/test by a hash of the text, so a split never changes when
catalogs are added."""
from __future__ import annotations

import gettext
import glob
import hashlib
import os
import re

LANGUAGES = ("de", "es", "fr", "it", "nl", "pl", "pt_BR", "sv")
# printf conversions, {fields}, markup tags, and keyboard accelerators (_File, &Open)
_PLACEHOLDER = re.compile(
    r"%(\([^)]*\))?[-#0 +']*\d*(\.\d+)?[hlLqjzt]*[diouxXeEfFgGcrsaA%]|\{[^}]*\}|<[^>]+>|[_&](?=\w)")


def _messages(catalog_path: str):
    try:
        with open(catalog_path, "rb") as f:
            translations = gettext.GNUTranslations(f)
    except (OSError, UnicodeDecodeError, ValueError, KeyError):  # a damaged or foreign catalog: skipped
        return []
    out = []
    for value in translations._catalog.values():  # msgid -> msgstr (plural forms: one entry each)
        if isinstance(value, str):
            out.append(value)
    return out


def _clean(text: str) -> str:
    return " ".join(_PLACEHOLDER.sub(" ", text).split())


def split_of(text: str) -> str:
    bucket = int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:8], 16) % 10
    return "test" if bucket == 0 else "valid" if bucket == 1 else "train"


def load_corpus(locale_dir: str = "/usr/share/locale", languages=LANGUAGES, min_words: int = 4,
                max_per_language: int | None = None) -> dict:
    """{'train'|'valid'|'test': [(label index, text)]} over `languages` (labels in their order)."""
    splits = {"train": [], "valid": [], "test": []}
    for label, language in enumerate(languages):
        seen = set()
        for path in sorted(glob.glob(os.path.join(locale_dir, language, "LC_MESSAGES", "*.mo"))):
            for message in _messages(path):
                text = _clean(message)
                if len(text.split()) >= min_words:
                    seen.add(text)
        if not seen:
            raise RuntimeError(f"no {language} messages in {locale_dir}: the recipe needs the gettext catalogs "
                               "that Debian's packages install (apt-get install coreutils apt ...)")
        texts = sorted(seen, key=lambda t: hashlib.sha1(t.encode("utf-8")).hexdigest())
        if max_per_language is not None:
            texts = texts[:max_per_language]
        for text in texts:
            splits[split_of(text)].append((label, text))
    return splits
