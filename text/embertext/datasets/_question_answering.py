"""SQuAD 1.1 and 2.0: (context, question, answers, answer starts)."""

import io
import json

from ._common import RawTextIterableDataset, fetch, wrap_split_argument

_SQUAD = "https://rajpurkar.github.io/SQuAD-explorer/dataset/"


def _read_squad(path: str):
    with io.open(path, encoding="utf-8") as f:
        data = json.load(f)
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                answers = [a["text"] for a in qa["answers"]]
                starts = [a["answer_start"] for a in qa["answers"]]
                if not answers:  # SQuAD 2.0's unanswerable questions
                    answers, starts = [""], [-1]
                yield paragraph["context"], qa["question"], answers, starts


def _squad(name: str, version: str, md5: dict, doc: str):
    def dataset(root: str, split: str):
        filename = f"{split}-v{version}.json"
        path = fetch(root, _SQUAD + filename, filename, md5[split])
        return RawTextIterableDataset(f"{name} {split}", lambda: _read_squad(path))

    dataset.__name__ = dataset.__qualname__ = name
    dataset.__doc__ = doc + " Yields (context, question, answers, answer_starts); splits 'train', 'dev'."
    return wrap_split_argument(("train", "dev"))(dataset)


SQuAD1 = _squad(
    "SQuAD1",
    "1.1",
    {"train": "981b29407e0affa3b1b156f72073b945", "dev": "3e85deb501d4e538b6bc56f786231552"},
    "SQuAD 1.1 (87,599/10,570 questions).",
)
SQuAD2 = _squad(
    "SQuAD2",
    "2.0",
    {"train": "62108c273c268d70893182d5cf8df740", "dev": "246adae8b7002f8679c027697b0b7cf8"},
    "SQuAD 2.0 (130,319/11,873 questions; unanswerable ones yield answers [''] and starts [-1]).",
)

__all__ = ["SQuAD1", "SQuAD2"]
