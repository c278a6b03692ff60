"""Vocabularies (`Vocab`, `vocab`, `build_vocab_from_iterator`) and pretrained word vectors."""

from ._factories import build_vocab_from_iterator, vocab
from ._vectors import CharNGram, FastText, GloVe, Vectors
from ._vocab import Vocab

__all__ = ["Vocab", "vocab", "build_vocab_from_iterator", "Vectors", "GloVe", "FastText", "CharNGram"]
