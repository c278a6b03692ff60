"""SentencePiece helpers and iterator transforms (torchtext.data.functional)."""

import base64
import io
import os
import re
from typing import Any, Callable, Iterable, Iterator, List, Optional, Tuple, Union

import ember
from ember.utils.data import Dataset


def _sentencepiece():
    try:
        import sentencepiece
    except ImportError as error:  # a dependency of embertext, so only a broken install lands here
        raise ImportError(
            "embertext's SentencePiece support needs the 'sentencepiece' package: pip install sentencepiece"
        ) from error
    return sentencepiece


def generate_sp_model(
    filename: str, vocab_size: int = 20000, model_type: str = "unigram", model_prefix: str = "m_user"
) -> None:
    """Trains a SentencePiece model on the text file `filename`, writing `model_prefix`.model and .vocab."""
    if not os.path.isfile(filename):
        raise FileNotFoundError(f"generate_sp_model: no such file: '{filename}'")
    if model_type not in ("unigram", "bpe", "char", "word"):
        raise ValueError(f"generate_sp_model: model_type must be unigram, bpe, char or word, got '{model_type}'")
    _sentencepiece().SentencePieceTrainer.train(
        input=filename, model_prefix=model_prefix, vocab_size=vocab_size, model_type=model_type
    )


def load_sp_model(spm: Union[str, os.PathLike, io.IOBase]) -> Any:
    """A SentencePiece model from a model file's path or a binary file object, as torchtext's: an ember.jit
    object (ember.classes.text.SentencePiece, on Google's C++ library) with EncodeAsIds, EncodeAsPieces,
    DecodeIds, DecodePieces, GetPieceSize, unk_id, PieceToId and IdToPiece, which scripted code can call."""
    if isinstance(spm, (str, os.PathLike)):
        if not os.path.isfile(spm):
            raise FileNotFoundError(f"load_sp_model: no such file: '{os.fspath(spm)}'")
        with open(spm, "rb") as f:
            data = f.read()
    elif isinstance(spm, io.IOBase):
        data = spm.read()
        if not isinstance(data, bytes):
            raise TypeError("load_sp_model: the file object must be opened in binary mode")
    else:
        raise TypeError(f"load_sp_model: expected a path or a binary file object, got {type(spm).__name__}")
    return ember.classes.text.SentencePiece(base64.b64encode(data).decode("ascii"))


def sentencepiece_numericalizer(sp_model) -> Callable[[Iterable[str]], Iterator[List[int]]]:
    """A generator function turning lines into SentencePiece ids."""

    def _internal_func(txt_iter: Iterable[str]) -> Iterator[List[int]]:
        for line in txt_iter:
            yield sp_model.EncodeAsIds(line)

    return _internal_func


def sentencepiece_tokenizer(sp_model) -> Callable[[Iterable[str]], Iterator[List[str]]]:
    """A generator function turning lines into SentencePiece pieces."""

    def _internal_func(txt_iter: Iterable[str]) -> Iterator[List[str]]:
        for line in txt_iter:
            yield sp_model.EncodeAsPieces(line)

    return _internal_func


def custom_replace(replace_pattern: List[Tuple[str, str]]) -> Callable[[Iterable[str]], Iterator[str]]:
    """A generator function applying each (regex, replacement) to every line, in order."""
    compiled = [(re.compile(p), r) for p, r in replace_pattern]

    def _internal_func(txt_iter: Iterable[str]) -> Iterator[str]:
        for line in txt_iter:
            for pattern, replacement in compiled:
                line = pattern.sub(replacement, line)
            yield line

    return _internal_func


def simple_space_split(iterator: Iterable[str]) -> Iterator[List[str]]:
    """Splits every line at white space."""
    for line in iterator:
        yield line.split()


def numericalize_tokens_from_iterator(
    vocab, iterator: Iterable[List[str]], removed_tokens: Optional[List[str]] = None
) -> Iterator[Iterator[int]]:
    """For each token list, an iterator over its tokens' indices in `vocab`, skipping `removed_tokens`."""
    removed = set(removed_tokens or ())
    for tokens in iterator:
        yield iter(vocab[token] for token in tokens if token not in removed)


class _MapStyleDataset(Dataset):
    def __init__(self, iter_data):
        self._data = list(iter_data)

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


def to_map_style_dataset(iter_data) -> Dataset:
    """A map-style dataset (indexable, with len) holding every item of an iterable dataset."""
    return _MapStyleDataset(iter_data)
