"""Text classification datasets: (label, text) pairs."""

import glob
import io
import os

from ._common import RawTextIterableDataset, fetch, label_and_text, wrap_split_argument

_DRIVE = "https://drive.google.com/uc?export=download&id="


def _csv_tarball_dataset(name: str, drive_id: str, md5: str, folder_name: str, doc: str):
    """A dataset of Xiang Zhang's CSV collections: a tarball on Google Drive holding train.csv/test.csv."""

    def dataset(root: str, split: str):
        member = os.path.join(folder_name, split + ".csv")
        fetch(root, _DRIVE + drive_id, folder_name + ".tar.gz", md5, needed=[member])
        path = os.path.join(root, member)
        return RawTextIterableDataset(f"{name} {split}", lambda: label_and_text(path))

    dataset.__name__ = dataset.__qualname__ = name
    dataset.__doc__ = doc + " Yields (label, text); splits 'train' and 'test'."
    return wrap_split_argument(("train", "test"))(dataset)


AmazonReviewFull = _csv_tarball_dataset(
    "AmazonReviewFull",
    "0Bz8a_Dbh9QhbZVhsUnRWRDhETzA",
    "57d28bd5d930e772930baddf36641c7c",
    "amazon_review_full_csv",
    "Amazon reviews, 5 classes (3,000,000/650,000 rows).",
)
AmazonReviewPolarity = _csv_tarball_dataset(
    "AmazonReviewPolarity",
    "0Bz8a_Dbh9QhbaW12WVVZS2drcnM",
    "fe39f8b653cada45afd5792e0f0e8f9b",
    "amazon_review_polarity_csv",
    "Amazon reviews, 2 classes (3,600,000/400,000 rows).",
)
DBpedia = _csv_tarball_dataset(
    "DBpedia",
    "0Bz8a_Dbh9QhbQ2Vic1kxMmZZQ1k",
    "dca7b1ae12b1091090db52aa7ec5ca64",
    "dbpedia_csv",
    "DBpedia ontology, 14 classes (560,000/70,000 rows).",
)
SogouNews = _csv_tarball_dataset(
    "SogouNews",
    "0Bz8a_Dbh9QhbUkVqNEszd0pHaFE",
    "0c1700ba70b73f964dd8de569d3fd03e",
    "sogou_news_csv",
    "Sogou news in pinyin, 5 classes (450,000/60,000 rows).",
)
YahooAnswers = _csv_tarball_dataset(
    "YahooAnswers",
    "0Bz8a_Dbh9Qhbd2JNdDBsQUdocVU",
    "f3f9899b997a42beb24157e62e3eea8d",
    "yahoo_answers_csv",
    "Yahoo! Answers, 10 classes (1,400,000/60,000 rows).",
)
YelpReviewFull = _csv_tarball_dataset(
    "YelpReviewFull",
    "0Bz8a_Dbh9QhbZlU4dXhHTFhZQU0",
    "f7ddfafed1033f68ec72b9267863af6c",
    "yelp_review_full_csv",
    "Yelp reviews, 5 classes (650,000/50,000 rows).",
)
YelpReviewPolarity = _csv_tarball_dataset(
    "YelpReviewPolarity",
    "0Bz8a_Dbh9QhbNUpYQ2N3SGlFaDg",
    "620c8ae4bd5a150b730f1ba9a7c6a4d3",
    "yelp_review_polarity_csv",
    "Yelp reviews, 2 classes (560,000/38,000 rows).",
)

_AG_NEWS = "https://raw.githubusercontent.com/mhjabreel/CharCnn_Keras/master/data/ag_news_csv/"
_AG_NEWS_MD5 = {"train": "b1a00f826fdfbd249f79597b59e1dc12", "test": "d52ea96a97a2d943681189a97654912d"}


@wrap_split_argument(("train", "test"))
def AG_NEWS(root: str, split: str):
    """AG's news, 4 classes (120,000/7,600 rows). Yields (label 1-4, title and description)."""
    path = fetch(root, _AG_NEWS + split + ".csv", split + ".csv", _AG_NEWS_MD5[split])
    return RawTextIterableDataset(f"AG_NEWS {split}", lambda: label_and_text(path))


@wrap_split_argument(("train", "test"))
def IMDB(root: str, split: str):
    """Large Movie Review Dataset (25,000/25,000 reviews). Yields (label 'neg' or 'pos', review)."""
    fetch(
        root,
        "http://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz",
        "aclImdb_v1.tar.gz",
        "7c2ac02c03563afcf9b574c7e56c153a",
        needed=[os.path.join("aclImdb", split, label) for label in ("neg", "pos")],
    )

    def reviews():
        for label in ("neg", "pos"):
            for path in sorted(glob.glob(os.path.join(root, "aclImdb", split, label, "*.txt"))):
                with io.open(path, encoding="utf-8") as f:
                    yield label, f.read()

    return RawTextIterableDataset(f"IMDB {split}", reviews)


@wrap_split_argument(("train", "dev", "test"))
def SST2(root: str, split: str):
    """GLUE's Stanford Sentiment Treebank (67,349/872/1,821 sentences). Yields (text, label 0/1), or
    (text,) for the unlabelled test split."""
    member = os.path.join("SST-2", split + ".tsv")
    fetch(
        root,
        "https://dl.fbaipublicfiles.com/glue/data/SST-2.zip",
        "SST-2.zip",
        "9f81648d4199384278b86e315dac217c",
        needed=[member],
    )
    path = os.path.join(root, member)

    def rows():
        with io.open(path, encoding="utf-8") as f:
            next(f, None)  # the header
            for line in f:
                fields = line.rstrip("\n").split("\t")
                yield (fields[1].strip(),) if split == "test" else (fields[0].strip(), int(fields[1]))

    return RawTextIterableDataset(f"SST2 {split}", rows)


__all__ = [
    "AG_NEWS",
    "AmazonReviewFull",
    "AmazonReviewPolarity",
    "DBpedia",
    "IMDB",
    "SogouNews",
    "SST2",
    "YahooAnswers",
    "YelpReviewFull",
    "YelpReviewPolarity",
]
