import re
from functools import partial
from typing import Callable, Iterator, List, Optional, Union

_BASIC_ENGLISH = [
    (re.compile(p), r)
    for p, r in [
        (r"\'", " '  "),
        (r"\"", ""),
        (r"\.", " . "),
        (r"<br \/>", " "),
        (r",", " , "),
        (r"\(", " ( "),
        (r"\)", " ) "),
        (r"\!", " ! "),
        (r"\?", " ? "),
        (r"\;", " "),
        (r"\:", " "),
        (r"\s+", " "),
    ]
]


def basic_english_normalize(line: str) -> List[str]:
    """torchtext's 'basic_english' tokenizer: lower case, spaces around ' . , ( ) ! ?, quotes, <br />,
    ; and : removed, then split at white space."""
    line = line.lower()
    for pattern, replacement in _BASIC_ENGLISH:
        line = pattern.sub(replacement, line)
    return line.split()


def _split_tokenizer(line: str) -> List[str]:
    return line.split()


def _spacy_tokenize(text: str, spacy) -> List[str]:
    return [tok.text for tok in spacy.tokenizer(text)]


def get_tokenizer(tokenizer: Optional[Union[str, Callable]], language: str = "en") -> Callable[[str], List[str]]:
    """A tokenizer function: None (str.split), a callable (returned as is), 'basic_english', or one of the
    third-party tokenizers 'spacy', 'moses' (sacremoses), 'toktok' (NLTK), 'revtok', 'subword' when
    their package is installed."""
    if tokenizer is None:
        return _split_tokenizer
    if tokenizer == "basic_english":
        if language != "en":
            raise ValueError("Basic normalization is only available for English (en)")
        return basic_english_normalize
    if callable(tokenizer):
        return tokenizer
    if tokenizer == "spacy":
        spacy = _require("spacy", "spacy")
        try:
            model = spacy.load(language)
        except OSError as error:
            raise OSError(
                f"get_tokenizer('spacy'): spaCy has no model '{language}' installed "
                f"(python -m spacy download {language})"
            ) from error
        return partial(_spacy_tokenize, spacy=model)
    if tokenizer == "moses":
        return _require("sacremoses", "moses").MosesTokenizer().tokenize
    if tokenizer == "toktok":
        _require("nltk", "toktok")
        from nltk.tokenize.toktok import ToktokTokenizer

        return ToktokTokenizer().tokenize
    if tokenizer == "revtok":
        return _require("revtok", "revtok").tokenize
    if tokenizer == "subword":
        return partial(_require("revtok", "subword").tokenize, decap=True)
    raise ValueError(
        f"Requested tokenizer {tokenizer}, valid choices are a callable that takes a single string as input, "
        '"basic_english", "revtok" for the revtok reversible tokenizer, "subword" for the revtok caps-aware '
        'tokenizer, "spacy" for the SpaCy English tokenizer, "moses" for the NLTK port of the Moses '
        'tokenization script, or "toktok" for NLTK\'s toktok tokenizer.'
    )


def _require(module: str, name: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"get_tokenizer('{name}') needs the '{module}' package: pip install {module}") from error


def ngrams_iterator(token_list: List[str], ngrams: int) -> Iterator[str]:
    """The tokens, then every n-gram for n = 2..ngrams joined by single spaces (torchtext's order)."""
    if ngrams < 1:
        raise ValueError(f"ngrams_iterator: ngrams must be at least 1, got {ngrams}")
    for token in token_list:
        yield token
    for n in range(2, ngrams + 1):
        for gram in zip(*[token_list[i:] for i in range(n)]):
            yield " ".join(gram)


def interleave_keys(a: int, b: int) -> int:
    """Interleaves the bits of two 16-bit keys into one sort key (for sorting pairs by both lengths)."""

    def bits(x: int) -> str:
        return format(x, "016b")

    return int("".join(x + y for x, y in zip(bits(a), bits(b))), 2)
