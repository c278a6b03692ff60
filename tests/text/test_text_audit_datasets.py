"""Datasets issue 26's audit found untested or unlike torchtext's: IWSLT2017 from its real nested archive
(2017-01-trnmted.tgz holding texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo.tgz, with tags training
files and XML dev2010/tst2010 sets), and EnWik9's split argument (torchtext's: one split 'train', a
tuple of datasets unless one split is named)."""
import hashlib
import io
import pathlib
import tarfile

import pytest

import embertext.utils
from embertext import datasets


@pytest.fixture
def trust(monkeypatch):
    """Accept the test's own archive in place of the published file with that MD5."""
    accepted = {}
    real = embertext.utils.validate_file

    def validate(f, hash_value, hash_type="sha256"):
        return real(f, accepted.get(hash_value, hash_value), hash_type)

    monkeypatch.setattr(embertext.utils, "validate_file", validate)
    return lambda published, path: accepted.__setitem__(published, hashlib.md5(path.read_bytes()).hexdigest())


def _tgz(files: dict) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            data = data.encode("utf-8") if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _xml(sentences):
    segs = "".join(f'<seg id="{i}"> {s} </seg>' for i, s in enumerate(sentences, 1))
    return f'<?xml version="1.0" encoding="UTF-8"?><mteval><srcset><doc docid="7">{segs}</doc></srcset></mteval>'


def test_iwslt2017_from_its_nested_archives(tmp_path, trust):
    inner_name = "DeEnItNlRo-DeEnItNlRo"
    files = {
        f"{inner_name}/train.tags.it-nl.it": "<url>http://ted</url>\n<talkid>9</talkid>\nCiao mondo.\nGrazie.\n",
        f"{inner_name}/train.tags.it-nl.nl": "<url>http://ted</url>\n<talkid>9</talkid>\nHallo wereld.\nDank je.\n",
        f"{inner_name}/IWSLT17.TED.dev2010.it-nl.it.xml": _xml(["Uno.", "Due."]),
        f"{inner_name}/IWSLT17.TED.dev2010.it-nl.nl.xml": _xml(["Een.", "Twee."]),
        f"{inner_name}/IWSLT17.TED.tst2010.it-nl.it.xml": _xml(["Tre."]),
        f"{inner_name}/IWSLT17.TED.tst2010.it-nl.nl.xml": _xml(["Drie."]),
    }
    outer = tmp_path / "IWSLT2017" / "2017-01-trnmted.tgz"
    outer.parent.mkdir()
    outer.write_bytes(_tgz({f"2017-01-trnmted/texts/DeEnItNlRo/DeEnItNlRo/{inner_name}.tgz": _tgz(files)}))
    trust("aca701032b1c4411afc4d9fa367796ba", outer)
    train, valid, test = datasets.IWSLT2017(root=str(tmp_path), language_pair=("it", "nl"))
    assert list(train) == [("Ciao mondo.\n", "Hallo wereld.\n"), ("Grazie.\n", "Dank je.\n")]
    assert list(valid) == [("Uno.\n", "Een.\n"), ("Due.\n", "Twee.\n")] and len(valid) == 2
    assert list(test) == [("Tre.\n", "Drie.\n")] and len(test) == 1
    assert list(datasets.IWSLT2017(root=str(tmp_path), split="test", language_pair=("it", "nl"))) == list(test)
    with pytest.raises(ValueError, match="tgt_language 'fr'"):
        datasets.IWSLT2017(root=str(tmp_path), language_pair=("it", "fr"))


def test_enwik9_split_argument_as_torchtexts(tmp_path):
    (tmp_path / "EnWik9").mkdir()
    pathlib.Path(tmp_path / "EnWik9" / "enwik9").write_text("<mediawiki>\n  <page>\n")
    (train,) = datasets.EnWik9(root=str(tmp_path))
    assert list(train) == ["<mediawiki>", "  <page>"] and len(train) == 2
    assert list(datasets.EnWik9(root=str(tmp_path), split="train")) == list(train)
    with pytest.raises(ValueError, match="split 'valid' is not supported"):
        datasets.EnWik9(root=str(tmp_path), split="valid")
