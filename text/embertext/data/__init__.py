"""Text data utilities (torchtext.data): tokenizers, n-grams, BLEU, SentencePiece helpers."""

from . import functional, metrics, utils
from .functional import (
    custom_replace,
    generate_sp_model,
    load_sp_model,
    numericalize_tokens_from_iterator,
    sentencepiece_numericalizer,
    sentencepiece_tokenizer,
    simple_space_split,
    to_map_style_dataset,
)
from .metrics import bleu_score
from .utils import get_tokenizer, interleave_keys, ngrams_iterator

__all__ = [
    "bleu_score",
    "get_tokenizer",
    "interleave_keys",
    "ngrams_iterator",
    "generate_sp_model",
    "load_sp_model",
    "sentencepiece_numericalizer",
    "sentencepiece_tokenizer",
    "custom_replace",
    "simple_space_split",
    "numericalize_tokens_from_iterator",
    "to_map_style_dataset",
    "functional",
    "metrics",
    "utils",
]
