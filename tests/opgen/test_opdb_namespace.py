"""The `namespace:` key of an op entry: which values the loader takes, the name an op gets in its
namespace, and that a prefixed name (linalg_*, special_*, fft_*) cannot stay at the top level."""
import pytest

from tools.opgen import gen, opdb

ENTRY = """
- name: {name}
  schema: {name}(Tensor x) -> Tensor
{extra}  dtypes: [float32]
  kernel: {{pointwise: "x + x"}}
  backward: {{x: "grad * 2"}}
"""


def _load(tmp_path, name, extra=""):
    (tmp_path / "fam.yaml").write_text(ENTRY.format(name=name, extra=extra))
    return opdb.load(tmp_path)


@pytest.mark.parametrize("ns,name,py_name,path", [
    ("linalg", "linalg_twice", "twice", "_C._linalg.twice"),
    ("special", "special_twice", "twice", "_C._special.twice"),
    ("fft", "fft_twice", "twice", "_C._fft.twice"),
    ("nn.functional", "twice", "twice", "_C._nn.twice"),
])
def test_a_namespace_binds_the_name_without_its_prefix(tmp_path, ns, name, py_name, path):
    (op,) = _load(tmp_path, name, f"  namespace: {ns}\n")
    assert (op.namespace, op.py_name, op.binding_path) == (ns, py_name, path)
    code = gen.gen_bindings("fam", [op])
    assert f'v.push_back({{"{py_name}", FASTCALL(fn_{name}), "{py_name}(x) -> Tensor' in code
    assert f"void add_fam_{path.split('.')[1].strip('_')}_functions" in code


def test_without_a_namespace_the_op_is_top_level(tmp_path):
    (op,) = _load(tmp_path, "twice")
    assert (op.namespace, op.py_name, op.binding_path) == (None, "twice", "_C.twice")
    code = gen.gen_bindings("fam", [op])
    assert "void add_fam_functions(std::vector<PyMethodDef>& v) {\n  v.push_back({\"twice\"" in code


def test_an_unknown_namespace_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"fam\.yaml: twice: namespace: takes one of linalg, special, fft, "
                                         r"nn\.functional, got 'linalg2'"):
        _load(tmp_path, "twice", "  namespace: linalg2\n")


@pytest.mark.parametrize("name,ns", [("linalg_twice", "linalg"), ("special_twice", "special"), ("fft_twice", "fft")])
def test_a_prefixed_name_needs_its_namespace(tmp_path, name, ns):
    with pytest.raises(ValueError, match=rf"fam\.yaml: {name}: an op named {ns}_\* needs namespace: {ns}"):
        _load(tmp_path, name)


def test_the_database_has_no_prefixed_top_level_op():
    top = [o.name for o in opdb.load() if o.namespace is None and o.name.startswith(("linalg_", "special_", "fft_"))]
    assert top == []
