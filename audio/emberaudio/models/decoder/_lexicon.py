"""Word lexicons for constrained CTC decoding: a trie over token ids of each word's spelling."""
import os


class _Node:
    __slots__ = ("children", "word")

    def __init__(self):
        self.children = {}
        self.word = None  # the word whose spelling ends here


class LexiconTrie:
    """Spellings (word -> token id list) in a trie; decoding walks it one token at a time."""

    def __init__(self, spellings):
        self.root = _Node()
        for word, ids in spellings.items():
            if not ids:
                raise ValueError(f"lexicon word {word!r} has an empty spelling")
            node = self.root
            for i in ids:
                node = node.children.setdefault(i, _Node())
            node.word = word


def read_lexicon(lexicon, token_index, sil_token):
    """lexicon: a dict word -> spelling (a list of token strings or one string of single-character tokens), or a
    file with lines "word t1 t2 ... |" (flashlight's format; a word's first spelling wins). A spelling's trailing
    word separators are dropped: decoding places separators between words itself."""
    entries = {}
    if isinstance(lexicon, (str, os.PathLike)):
        with open(lexicon, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                parts = line.split()
                if not parts:
                    continue
                if len(parts) < 2:
                    raise ValueError(f"{os.fspath(lexicon)}:{line_no}: a lexicon line needs a word and its spelling")
                entries.setdefault(parts[0], parts[1:])
    elif isinstance(lexicon, dict):
        entries = {w: list(s) if isinstance(s, str) else list(s) for w, s in lexicon.items()}
    else:
        raise TypeError(f"lexicon must be a dict or a file path, got {type(lexicon).__name__}")
    spellings = {}
    for word, tokens in entries.items():
        while tokens and tokens[-1] == sil_token:
            tokens = tokens[:-1]
        unknown = [t for t in tokens if t not in token_index]
        if unknown:
            raise ValueError(f"lexicon word {word!r} uses tokens not in the token set: {unknown}")
        spellings[word] = [token_index[t] for t in tokens]
    return LexiconTrie(spellings)
