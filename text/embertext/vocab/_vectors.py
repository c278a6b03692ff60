"""Pretrained word vectors (torchtext.vocab.Vectors, GloVe, FastText, CharNGram): read from the word2vec/
GloVe/fastText text formats (a header line 'count dim' is skipped), kept as a (count, dim) tensor, and
cached in ember's binary format beside the text file so later loads skip parsing."""

import io
import logging
import os
from typing import Callable, List, Optional, Union

import numpy as np

import ember

from ..utils import download_from_url, extract_archive

logger = logging.getLogger(__name__)


class Vectors:
    def __init__(
        self,
        name: str,
        cache: Optional[str] = None,
        url: Optional[str] = None,
        unk_init: Optional[Callable[[ember.Tensor], ember.Tensor]] = None,
        max_vectors: Optional[int] = None,
    ):
        """name: a vectors file (or its name inside `cache`, fetched from `url` when absent); unk_init:
        fills the vector of a token it lacks (default: zeros); max_vectors: read only the first ones (the
        files list the most frequent words first)."""
        self.cache_dir = ".vector_cache" if cache is None else cache
        self.itos: List[str] = []
        self.stoi = {}
        self.vectors: Optional[ember.Tensor] = None
        self.dim: Optional[int] = None
        self.unk_init = ember.zeros_like if unk_init is None else unk_init
        if max_vectors is not None and max_vectors < 0:
            raise ValueError(f"Vectors: max_vectors must be non-negative, got {max_vectors}")
        self._load(name, self.cache_dir, url, max_vectors)

    def __getitem__(self, token: str) -> ember.Tensor:
        if token in self.stoi:
            return self.vectors[self.stoi[token]]
        return self.unk_init(ember.empty(self.dim))

    def __len__(self) -> int:
        return len(self.vectors)

    def get_vecs_by_tokens(self, tokens: Union[str, List[str]], lower_case_backup: bool = False) -> ember.Tensor:
        """The vectors of a token (shape (dim,)) or a list of tokens ((len, dim)); with lower_case_backup a
        token missing as written is looked up in lower case."""
        single = not isinstance(tokens, list)
        tokens = [tokens] if single else tokens
        if lower_case_backup:
            vectors = [self[t] if t in self.stoi else self[t.lower()] for t in tokens]
        else:
            vectors = [self[t] for t in tokens]
        if not vectors:
            return ember.empty(0, self.dim)
        stacked = ember.stack(vectors)
        return stacked[0] if single else stacked

    def _load(self, name: str, cache: str, url: Optional[str], max_vectors: Optional[int]) -> None:
        suffix = f"_{max_vectors}.pt" if max_vectors else ".pt"
        if os.path.isfile(name):
            path = name
            cached = os.path.join(cache, os.path.basename(name)) + suffix
        else:
            path = os.path.join(cache, name)
            cached = path + suffix
        if os.path.isfile(cached):
            logger.info("Loading vectors from %s", cached)
            self.itos, self.stoi, self.vectors, self.dim = ember.load(cached, weights_only=False)
            return
        if not os.path.isfile(path) and url:
            os.makedirs(cache, exist_ok=True)
            archive = download_from_url(url, path=os.path.join(cache, os.path.basename(url)))
            if archive != path and not archive.endswith((".txt", ".vec")):
                extract_archive(archive, cache)
        if not os.path.isfile(path):
            raise RuntimeError(f"no vectors found at {path}")
        self._read_text(path, max_vectors)
        os.makedirs(cache, exist_ok=True)
        ember.save((self.itos, self.stoi, self.vectors, self.dim), cached)

    def _read_text(self, path: str, max_vectors: Optional[int]) -> None:
        rows, dim = [], None
        with io.open(path, "rb") as f:
            for number, line in enumerate(f, 1):
                if max_vectors is not None and len(rows) >= max_vectors:
                    break
                parts = line.rstrip().split(b" ")
                word, values = parts[0], parts[1:]
                if len(values) <= 1 and number == 1:
                    logger.warning("Skipping the header line of %s", path)
                    continue
                if dim is None:
                    dim = len(values)
                elif len(values) != dim:
                    raise RuntimeError(
                        f"Vector for token {word!r} in {path} line {number} has {len(values)} dimensions, "
                        f"but previously read vectors have {dim} dimensions. All vectors must have the "
                        "same number of dimensions."
                    )
                try:
                    token = word.decode("utf-8")
                except UnicodeDecodeError:
                    logger.info("Skipping non-UTF-8 token %r", word)
                    continue
                if token in self.stoi:
                    continue
                try:
                    rows.append(np.array(values, dtype=np.float32))
                except ValueError as error:
                    raise RuntimeError(f"{path} line {number}: the vector of {token!r} is not numbers") from error
                self.stoi[token] = len(self.itos)
                self.itos.append(token)
        if dim is None:
            raise RuntimeError(f"no vectors found in {path}")
        self.dim = dim
        self.vectors = ember.tensor(np.stack(rows)) if rows else ember.empty(0, dim)


class GloVe(Vectors):
    """Stanford's GloVe vectors: name '840B', '42B', '6B' or 'twitter.27B' with their dims."""

    url = {
        "42B": "http://nlp.stanford.edu/data/glove.42B.300d.zip",
        "840B": "http://nlp.stanford.edu/data/glove.840B.300d.zip",
        "twitter.27B": "http://nlp.stanford.edu/data/glove.twitter.27B.zip",
        "6B": "http://nlp.stanford.edu/data/glove.6B.zip",
    }

    def __init__(self, name: str = "840B", dim: int = 300, **kwargs):
        if name not in self.url:
            raise ValueError(f"GloVe: name must be one of {sorted(self.url)}, got '{name}'")
        super().__init__(f"glove.{name}.{dim}d.txt", url=self.url[name], **kwargs)


class FastText(Vectors):
    """fastText's Wikipedia vectors for a language (wiki.<language>.vec)."""

    url_base = "https://dl.fbaipublicfiles.com/fasttext/vectors-wiki/wiki.{}.vec"

    def __init__(self, language: str = "en", **kwargs):
        url = self.url_base.format(language)
        super().__init__(os.path.basename(url), url=url, **kwargs)


class CharNGram(Vectors):
    """Hashimoto et al.'s character n-gram vectors: a word's vector is the mean of its 2-, 3- and 4-grams'
    (with #BEGIN#/#END# marks), shape (1, dim)."""

    name = "charNgram.txt"
    url = "http://www.logos.t.u-tokyo.ac.jp/~hassy/publications/arxiv2016jmt/jmt_pre-trained_embeddings.tar.gz"

    def __init__(self, **kwargs):
        super().__init__(self.name, url=self.url, **kwargs)

    def __getitem__(self, token: str) -> ember.Tensor:
        vector = ember.zeros(1, self.dim)
        if token == "<unk>":
            return self.unk_init(vector)
        chars = ["#BEGIN#"] + list(token) + ["#END#"]
        found = 0
        for n in (2, 3, 4):
            for i in range(len(chars) - n + 1):
                key = f"{n}gram-{''.join(chars[i : i + n])}"
                if key in self.stoi:
                    vector += self.vectors[self.stoi[key]]
                    found += 1
        return vector / found if found else self.unk_init(vector)
