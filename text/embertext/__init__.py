"""embertext: ember's text package (torchtext's API): vocabularies, tokenizers (SentencePiece, GPT-2 BPE,
BERT WordPiece), composable transforms, datasets and pretrained-vector loading. The tokenizers and the
vocabulary table are C++ (`embertext._C`)."""

import ember as _ember

from . import _C  # noqa: F401
from ._version import __version__  # noqa: F401

ember_version = _ember.__version__

from . import data, datasets, functional, nn, transforms, utils, vocab  # noqa: E402,F401
