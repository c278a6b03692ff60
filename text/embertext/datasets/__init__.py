"""The raw text datasets of torchtext: iterable datasets with len(), one per split, downloaded (with
checksums, resume and a progress bar) into root/<name> on first use."""

from ._common import RawTextIterableDataset
from ._language_modeling import EnWik9, PennTreebank, WikiText2, WikiText103
from ._question_answering import SQuAD1, SQuAD2
from ._sequence_tagging import UDPOS, CoNLL2000Chunking
from ._text_classification import (
    AG_NEWS,
    IMDB,
    SST2,
    AmazonReviewFull,
    AmazonReviewPolarity,
    DBpedia,
    SogouNews,
    YahooAnswers,
    YelpReviewFull,
    YelpReviewPolarity,
)
from ._translation import IWSLT2016, IWSLT2017, Multi30k

DATASETS = {
    "AG_NEWS": AG_NEWS,
    "AmazonReviewFull": AmazonReviewFull,
    "AmazonReviewPolarity": AmazonReviewPolarity,
    "CoNLL2000Chunking": CoNLL2000Chunking,
    "DBpedia": DBpedia,
    "EnWik9": EnWik9,
    "IMDB": IMDB,
    "IWSLT2016": IWSLT2016,
    "IWSLT2017": IWSLT2017,
    "Multi30k": Multi30k,
    "PennTreebank": PennTreebank,
    "SQuAD1": SQuAD1,
    "SQuAD2": SQuAD2,
    "SogouNews": SogouNews,
    "SST2": SST2,
    "UDPOS": UDPOS,
    "WikiText103": WikiText103,
    "WikiText2": WikiText2,
    "YahooAnswers": YahooAnswers,
    "YelpReviewFull": YelpReviewFull,
    "YelpReviewPolarity": YelpReviewPolarity,
}

__all__ = ["RawTextIterableDataset", "DATASETS", *sorted(DATASETS)]
