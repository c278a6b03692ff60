"""Reading the vocabulary files the tokenizers are built from, with errors that name the file."""

import json
import os
from typing import Dict, List, Tuple


def _check_file(path: str, what: str) -> str:
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{what}: no such file: '{path}'")
    return path


def read_gpt2_encoder(path: str) -> Dict[str, int]:
    path = _check_file(path, "GPT2BPETokenizer encoder")
    try:
        with open(path, encoding="utf-8") as f:
            encoder = json.load(f)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"GPT2BPETokenizer: '{path}' is not a JSON token -> id map: {error}") from error
    if not isinstance(encoder, dict) or not all(isinstance(v, int) for v in encoder.values()):
        raise ValueError(f"GPT2BPETokenizer: '{path}' must hold a JSON object of token -> integer id")
    return encoder


def read_gpt2_merges(path: str) -> List[Tuple[str, str]]:
    """GPT-2's vocab.bpe: a '#version' line, then one 'a b' merge per line, best first."""
    path = _check_file(path, "GPT2BPETokenizer merges")
    merges = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or (number == 1 and line.startswith("#version")):
                continue
            parts = line.split(" ")
            if len(parts) != 2:
                raise ValueError(f"GPT2BPETokenizer: '{path}' line {number} is not a merge 'a b': {line!r}")
            merges.append((parts[0], parts[1]))
    return merges


def read_token_lines(path: str, what: str) -> List[str]:
    path = _check_file(path, what)
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").rstrip("\r") for line in f if line.strip()]
