"""tools/opgen's `composite: true`: a composite op gets ad::NAME calling its hand-written ops::NAME
with no node of its own (and NAME_out writing that result), while the generator refuses a composite
that also declares backward formulas or a kernel, and still refuses a non-composite floating op
that says nothing about differentiation."""
import pytest

from tools.opgen import autograd, gen, opdb

COMPOSITE = """
- name: twice
  schema: twice(Tensor x, *, int k=2) -> Tensor
  variants: [function, out]
  dtypes: [float32, float64]
  composite: true
"""


def _load(tmp_path, text):
    (tmp_path / "fam.yaml").write_text(text)
    ops = opdb.load(tmp_path)
    autograd.check_declared(ops)
    return ops


def test_composite_calls_its_implementation_without_a_node(tmp_path):
    (op,) = _load(tmp_path, COMPOSITE)
    assert op.composite
    code = autograd.gen_family("fam", [op])
    assert "Tensor twice(const Tensor& x, int64_t k) {\n  return ops::twice(x, k);\n}" in code
    assert "TwiceBackward0" not in code and "make_shared" not in code
    assert "return write_out(out, twice(x, k), \"twice\");" in code  # ops::twice_out
    assert "iter/out_arg.h" in code
    files = gen.generate([op])
    assert "generated/kernels/twice.cpp" not in files  # no generated kernel: ops::twice is hand-written
    assert '"composite": true' in files["generated/opdb.json"]


@pytest.mark.parametrize("extra,msg", [
    ("  backward:\n    x: \"grad\"\n", "gets its gradient from the ops it is made of"),
    ("  differentiable: false\n", "gets its gradient from the ops it is made of"),
    ("  kernel: {impl: true}\n", "declares no kernel"),
])
def test_composite_refuses_formulas_and_kernels(tmp_path, extra, msg):
    with pytest.raises(ValueError, match=msg):
        _load(tmp_path, COMPOSITE + extra)


def test_composite_refuses_inplace_and_bad_values(tmp_path):
    with pytest.raises(ValueError, match="no in-place variant"):
        _load(tmp_path, COMPOSITE.replace("[function, out]", "[function, inplace]"))
    with pytest.raises(ValueError, match="takes only true"):
        _load(tmp_path, COMPOSITE.replace("composite: true", "composite: yes please"))


def test_non_composite_float_op_must_still_say_how_it_differentiates(tmp_path):
    plain = COMPOSITE.replace("  composite: true\n", "  kernel: {impl: true}\n")
    with pytest.raises(ValueError, match="no backward formulas"):
        _load(tmp_path, plain)


def test_the_database_composites_are_loaded():
    ops = {o.name: o for o in opdb.load()}
    assert ops["linalg_vector_norm"].composite and not ops["linalg_matrix_exp"].composite
    assert "backward" in ops["linalg_matrix_exp"].entry
