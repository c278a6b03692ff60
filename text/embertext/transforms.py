"""Composable text transforms (torchtext.transforms), each an nn.Module taking one text/sequence or a
batch (a list of them). The tokenizers run in C++ and tokenize batches across threads."""

from typing import Any, List, Optional, Tuple, Union

import ember
from ember import nn

from . import _C, _regex_translate
from . import functional as F
from ._tokenizer_files import read_gpt2_encoder, read_gpt2_merges, read_token_lines
from .data.functional import load_sp_model
from .vocab import Vocab

__all__ = [
    "SentencePieceTokenizer",
    "GPT2BPETokenizer",
    "BERTTokenizer",
    "RegexTokenizer",
    "VocabTransform",
    "ToTensor",
    "LabelToIndex",
    "Truncate",
    "AddToken",
    "PadTransform",
    "StrToIntTransform",
    "Sequential",
]


def _one_or_batch(input: Any, one, batch, name: str) -> Any:
    if isinstance(input, str):
        return one(input)
    if isinstance(input, list) and all(isinstance(x, str) for x in input):
        return batch(input)
    raise TypeError(f"{name}: input type not supported: expected str or List[str], got {type(input).__name__}")


class _PathBuilt(nn.Module):
    """A transform whose C++ state is rebuilt from its files when unpickled (the files must still exist)."""

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_impl", None)
        state.pop("_script_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._build()


class SentencePieceTokenizer(_PathBuilt):
    """Pieces of a SentencePiece model loaded from `sp_model_path` (Google's C++ library, as an ember.jit class,
    so the transform scripts)."""

    def __init__(self, sp_model_path: str):
        super().__init__()
        self.sp_model_path = sp_model_path
        self._build()

    def _build(self):
        self._impl = load_sp_model(self.sp_model_path)

    def forward(self, input: Any) -> Any:
        return _one_or_batch(
            input,
            self._impl.EncodeAsPieces,
            lambda xs: [self._impl.EncodeAsPieces(x) for x in xs],
            "SentencePieceTokenizer",
        )

    def _script_forward(self, input: Any) -> Any:
        if ember.jit.isinstance(input, str):
            return self._impl.EncodeAsPieces(input)
        elif ember.jit.isinstance(input, List[str]):
            out: List[List[str]] = []
            for text in input:
                out.append(self._impl.EncodeAsPieces(text))
            return out
        else:
            raise TypeError("SentencePieceTokenizer: input type not supported: expected str or List[str]")

    def decode(self, pieces: List[str]) -> str:
        return self._impl.DecodePieces(pieces)


class _IdsOrTokens(_PathBuilt):
    """What GPT2BPETokenizer and BERTTokenizer share: one text or a list of them to token ids (as strings, as
    torchtext's) or, with return_tokens, the tokens, through _impl (eager) or _script_impl (scripted)."""

    _name = ""

    def _script_forward(self, input: Any) -> Any:
        if ember.jit.isinstance(input, str):
            if self._return_tokens:
                return self._script_impl.tokenize(input)
            return [str(i) for i in self._script_impl.encode(input)]
        elif ember.jit.isinstance(input, List[str]):
            out: List[List[str]] = []
            for text in input:
                if self._return_tokens:
                    out.append(self._script_impl.tokenize(text))
                else:
                    out.append([str(i) for i in self._script_impl.encode(text)])
            return out
        else:
            raise TypeError(self._name + ": input type not supported: expected str or List[str]")

    def _encode(self, text: str) -> List[str]:
        if self._return_tokens:
            return self._impl.tokenize(text)
        return [str(i) for i in self._impl.encode(text)]


class GPT2BPETokenizer(_IdsOrTokens):
    """GPT-2's byte-level BPE from its encoder.json and vocab.bpe: token ids (as strings, as torchtext's)
    or, with `return_tokens=True`, the tokens."""

    _name = "GPT2BPETokenizer"

    def __init__(self, encoder_json_path: str, vocab_bpe_path: str, return_tokens: bool = False):
        super().__init__()
        self.encoder_json_path, self.vocab_bpe_path, self._return_tokens = (
            encoder_json_path,
            vocab_bpe_path,
            return_tokens,
        )
        self._build()

    def _build(self):
        encoder, merges = read_gpt2_encoder(self.encoder_json_path), read_gpt2_merges(self.vocab_bpe_path)
        self._impl = _C.GPT2BPEEncoder(encoder, merges)
        # the same tokenizer as an ember.jit class, which scripted code calls
        self._script_impl = ember.classes.text.GPT2BPEEncoder(encoder, [f"{a} {b}" for a, b in merges])

    def forward(self, input: Any) -> Any:
        def batch(texts):
            if self._return_tokens:
                return [self._impl.tokenize(t) for t in texts]
            return [[str(i) for i in ids] for ids in self._impl.encode_batch(texts, ember.get_num_threads())]

        return _one_or_batch(input, self._encode, batch, self._name)

    def encode(self, text: str) -> List[int]:
        return self._impl.encode(text)

    def decode(self, tokens: List[str]) -> str:
        """The text of a list of token ids (as strings or ints)."""
        return self._impl.decode([int(t) for t in tokens]).decode("utf-8", errors="replace")


class BERTTokenizer(_IdsOrTokens):
    """BERT's tokenizer (basic tokenization, then WordPiece) over the vocabulary file `vocab_path` (one
    token a line): token ids (as strings, as torchtext's) or, with `return_tokens=True`, the tokens."""

    _name = "BERTTokenizer"

    def __init__(
        self,
        vocab_path: str,
        do_lower_case: bool = True,
        strip_accents: Optional[bool] = None,
        return_tokens: bool = False,
        never_split: Optional[List[str]] = None,
    ):
        super().__init__()
        self._vocab_path, self._do_lower_case, self._strip_accents = vocab_path, do_lower_case, strip_accents
        self._return_tokens, self._never_split = return_tokens, list(never_split or [])
        self._build()

    def _build(self):
        vocab = read_token_lines(self._vocab_path, "BERTTokenizer vocabulary")
        self._impl = _C.BERTTokenizer(vocab, self._do_lower_case, self._strip_accents, self._never_split)
        # the same tokenizer as an ember.jit class, which scripted code calls
        self._script_impl = ember.classes.text.BERTTokenizer(vocab, self._do_lower_case, self._strip_accents,
                                                              self._never_split)

    def forward(self, input: Any) -> Any:
        def batch(texts):
            threads = ember.get_num_threads()
            if self._return_tokens:
                return self._impl.tokenize_batch(texts, threads)
            return [[str(i) for i in ids] for ids in self._impl.encode_batch(texts, threads)]

        return _one_or_batch(input, self._encode, batch, self._name)


class RegexTokenizer(nn.Module):
    """Applies each (regex, replacement) of `patterns_list` in order, as Python's re.sub, then splits at spaces.
    It runs on RE2 (as torchtext's), as an ember.jit class so it scripts; the patterns are written in Python's
    syntax and keep Python's meaning (Unicode \\d, \\w, \\s); ValueError names a pattern RE2 cannot match the
    way Python would (lookarounds, backreferences, \\b)."""

    def __init__(self, patterns_list: List[Tuple[str, str]]):
        super().__init__()
        self.patterns_list = [(p, r) for p, r in patterns_list]
        self._build()

    def _build(self):
        patterns = [_regex_translate.to_re2(p) for p, _ in self.patterns_list]
        templates = [_regex_translate.to_template(r, p) for p, r in self.patterns_list]
        self._impl = ember.classes.text.RegexTokenizer(patterns, templates)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._build()

    def forward(self, line: Any) -> List[str]:
        if not isinstance(line, str):
            raise TypeError(f"RegexTokenizer: input type not supported: expected str, got {type(line).__name__}")
        return self._impl.forward(line)

    def _script_forward(self, line: Any) -> List[str]:
        if ember.jit.isinstance(line, str):
            return self._impl.forward(line)
        else:
            raise TypeError("RegexTokenizer: input type not supported: expected str")


class VocabTransform(nn.Module):
    """Token lists (or a batch of them) to their indices in `vocab`."""

    def __init__(self, vocab: Vocab):
        super().__init__()
        if not isinstance(vocab, Vocab):
            raise TypeError(f"VocabTransform: vocab must be an embertext.vocab.Vocab, got {type(vocab).__name__}")
        self.vocab = vocab

    def forward(self, input: Any) -> Any:
        if isinstance(input, list) and all(isinstance(x, str) for x in input):
            return self.vocab.lookup_indices(input)
        if isinstance(input, list) and all(isinstance(x, list) for x in input):
            return [self.vocab.lookup_indices(tokens) for tokens in input]
        raise TypeError(
            f"VocabTransform: input type not supported: expected List[str] or List[List[str]], "
            f"got {type(input).__name__}"
        )

    def _script_forward(self, input: Any) -> Any:
        if ember.jit.isinstance(input, List[str]):
            return self.vocab.lookup_indices(input)
        elif ember.jit.isinstance(input, List[List[str]]):
            return [self.vocab.lookup_indices(tokens) for tokens in input]
        else:
            raise TypeError("VocabTransform: input type not supported: expected List[str] or List[List[str]]")


class ToTensor(nn.Module):
    """Ids (or a batch of them, padded with `padding_value`) to a tensor of `dtype`."""

    def __init__(self, padding_value: Optional[int] = None, dtype: ember.dtype = ember.long):
        super().__init__()
        self.padding_value, self.dtype = padding_value, dtype

    def forward(self, input: Any) -> ember.Tensor:
        return F.to_tensor(input, padding_value=self.padding_value, dtype=self.dtype)


class LabelToIndex(nn.Module):
    """Label names to indices, from a list of names or a file of one name a line."""

    def __init__(
        self, label_names: Optional[List[str]] = None, label_path: Optional[str] = None, sort_names: bool = False
    ):
        super().__init__()
        if label_names is not None and label_path is not None:
            raise ValueError("LabelToIndex: label_names and label_path are mutually exclusive")
        if label_names is None and label_path is None:
            raise ValueError("LabelToIndex: label_names or label_path is required")
        names = list(label_names) if label_names is not None else read_token_lines(label_path, "LabelToIndex labels")
        if sort_names:
            names = sorted(names)
        self._label_vocab = Vocab(_C.Vocab(names))
        self._label_names = self._label_vocab.get_itos()

    def forward(self, input: Any) -> Any:
        if isinstance(input, str):
            return self._label_vocab[input]
        if isinstance(input, list) and all(isinstance(x, str) for x in input):
            return self._label_vocab.lookup_indices(input)
        raise TypeError(
            f"LabelToIndex: input type not supported: expected str or List[str], got {type(input).__name__}"
        )

    def _script_forward(self, input: Any) -> Any:
        if ember.jit.isinstance(input, str):
            return self._label_vocab.vocab.index(input)
        elif ember.jit.isinstance(input, List[str]):
            return self._label_vocab.lookup_indices(input)
        else:
            raise TypeError("LabelToIndex: input type not supported: expected str or List[str]")

    @property
    def label_names(self) -> List[str]:
        return self._label_names


class Truncate(nn.Module):
    def __init__(self, max_seq_len: int):
        super().__init__()
        self.max_seq_len = max_seq_len

    def forward(self, input: Any) -> Any:
        return F.truncate(input, self.max_seq_len)


class AddToken(nn.Module):
    def __init__(self, token: Union[int, str], begin: bool = True):
        super().__init__()
        self.token, self.begin = token, begin

    def forward(self, input: Any) -> Any:
        return F.add_token(input, self.token, self.begin)


class PadTransform(nn.Module):
    """Pads a tensor's last dimension with `pad_value` up to `max_length` (longer ones are kept)."""

    def __init__(self, max_length: int, pad_value: int):
        super().__init__()
        self.max_length, self.pad_value = max_length, float(pad_value)

    def forward(self, x: ember.Tensor) -> ember.Tensor:
        length = x.size(-1)
        if length < self.max_length:
            x = nn.functional.pad(x, (0, self.max_length - length), value=self.pad_value)
        return x

    def _script_forward(self, x: ember.Tensor) -> ember.Tensor:
        length = x.size(-1)
        if length < self.max_length:  # F.pad's constant padding of the last dimension, as a concatenation
            shape = x.size()
            shape[-1] = self.max_length - length
            x = ember.cat([x, ember.full(shape, self.pad_value, dtype=x.dtype)], -1)
        return x


class StrToIntTransform(nn.Module):
    def forward(self, input: Any) -> Any:
        return F.str_to_int(input)


class Sequential(nn.Sequential):
    """nn.Sequential whose forward takes any input type (token lists, strings), as torchtext's."""

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input
