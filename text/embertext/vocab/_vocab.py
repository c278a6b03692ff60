from typing import Dict, List, Optional

from ember import nn

from .. import _C


class Vocab(nn.Module):
    """Maps tokens to indices (torchtext's `Vocab`). Build one with `vocab()` or
    `build_vocab_from_iterator()`; looking up a token it lacks raises RuntimeError unless a default index
    is set with `set_default_index`."""

    def __init__(self, vocab: "_C.Vocab"):
        super().__init__()
        self.vocab = vocab

    def forward(self, tokens: List[str]) -> List[int]:
        return self.vocab.indices(tokens)

    def __len__(self) -> int:
        return len(self.vocab)

    def __contains__(self, token: str) -> bool:
        return token in self.vocab

    def __getitem__(self, token: str) -> int:
        return self.vocab.index(token)

    def __prepare_scriptable__(self):
        return self

    def set_default_index(self, index: Optional[int]) -> None:
        if index is not None and not isinstance(index, int):
            raise TypeError(f"set_default_index: index must be an int or None, got {type(index).__name__}")
        self.vocab.set_default_index(index)

    def get_default_index(self) -> Optional[int]:
        return self.vocab.default_index()

    def insert_token(self, token: str, index: int) -> None:
        self.vocab.insert_token(token, index)

    def append_token(self, token: str) -> None:
        self.vocab.append_token(token)

    def lookup_token(self, index: int) -> str:
        return self.vocab.token(index)

    def lookup_tokens(self, indices: List[int]) -> List[str]:
        return self.vocab.tokens(indices)

    def lookup_indices(self, tokens: List[str]) -> List[int]:
        return self.vocab.indices(tokens)

    def get_stoi(self) -> Dict[str, int]:
        return self.vocab.stoi()

    def get_itos(self) -> List[str]:
        return self.vocab.itos()

    def extra_repr(self) -> str:
        return f"size={len(self)}, default_index={self.get_default_index()}"
