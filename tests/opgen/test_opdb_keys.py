"""The op database's loader refuses what it does not understand: a misspelled key in an entry (or in
its kernel) fails the generator with the file and the entry named, instead of being silently ignored."""
import pytest

from tools.opgen import opdb

GOOD = """
- name: twice
  schema: twice(Tensor x) -> Tensor
  dtypes: [float32]
  kernel: {pointwise: "x + x"}
  backward: {x: "grad * 2"}
"""


def test_a_valid_entry_loads(tmp_path):
    (tmp_path / "fam.yaml").write_text(GOOD)
    (op,) = opdb.load(tmp_path)
    assert op.name == "twice" and op.pointwise == "x + x"


@pytest.mark.parametrize("old,new,named", [
    ("  backward:", "  backwards:", "backwards"),
    ("  dtypes:", "  dtype:", "dtype"),
    ("{pointwise:", "{pointwize:", "kernel.pointwize"),
])
def test_a_misspelled_key_names_the_entry_and_file(tmp_path, old, new, named):
    (tmp_path / "fam.yaml").write_text(GOOD.replace(old, new))
    with pytest.raises(ValueError, match=rf"fam\.yaml: twice: unknown key\(s\) {named}"):
        opdb.load(tmp_path)


def test_an_entry_that_is_not_a_mapping(tmp_path):
    (tmp_path / "fam.yaml").write_text("- just a string\n")
    with pytest.raises(ValueError, match="fam.yaml: every entry is a mapping"):
        opdb.load(tmp_path)


def test_every_key_is_documented():
    """core/ops/README.md describes each key the loader accepts."""
    text = (opdb.OPS_DIR / "README.md").read_text()
    missing = [k for k in sorted(opdb.ENTRY_KEYS | opdb.KERNEL_KEYS) if f"`{k}" not in text]
    assert not missing, f"keys without a description in core/ops/README.md: {missing}"
