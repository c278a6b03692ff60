"""An English corpus this machine has without a network: the documentation that ships with the Python
interpreter (the help topics of pydoc_data and the docstrings of the standard library's modules, classes
and functions), one paragraph a line. Sources are split by a hash of their name, 90/5/5 into train/valid/
test, so related text never straddles splits."""
from __future__ import annotations

import ast
import glob
import hashlib
import os
import sysconfig


def _split(name: str) -> str:
    bucket = int(hashlib.sha1(name.encode("utf-8")).hexdigest()[:8], 16) % 20
    return "test" if bucket == 0 else "valid" if bucket == 1 else "train"


def _paragraphs(text: str):
    for block in text.split("\n\n"):
        line = " ".join(block.split())
        if len(line.split()) >= 3:
            yield line


def _docstrings(path: str):
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node)
            if doc:
                yield from _paragraphs(doc)


def load_corpus(max_train_words: int | None = 400_000) -> dict:
    """{'train'|'valid'|'test': [paragraph lines]}; training text capped at about max_train_words words."""
    splits = {"train": [], "valid": [], "test": []}
    sources = []
    try:
        from pydoc_data.topics import topics

        sources += [(f"topic:{k}", list(_paragraphs(v))) for k, v in sorted(topics.items())]
    except ImportError:  # some distributions leave pydoc_data out; the docstrings suffice
        pass
    stdlib = sysconfig.get_paths()["stdlib"]
    for path in sorted(glob.glob(os.path.join(stdlib, "*.py")) + glob.glob(os.path.join(stdlib, "*", "*.py"))):
        if "test" not in os.path.relpath(path, stdlib).split(os.sep)[0]:
            sources.append((os.path.relpath(path, stdlib), list(_docstrings(path))))
    words = 0
    for name, lines in sources:
        split = _split(name)
        if split == "train":
            if max_train_words is not None and words >= max_train_words:
                continue
            words += sum(len(line.split()) for line in lines)
        splits[split] += lines
    if not splits["train"] or not splits["test"]:
        raise RuntimeError("found no documentation text in this Python installation")
    return splits
