"""Tensor printing: repr strings in PyTorch's documented format (with 'ember.' for 'torch.'), print
options, and the dtype/device/size suffixes."""
import math

import pytest

import ember
from ember._tensor_str import get_printoptions, printoptions

INF, NAN = math.inf, math.nan

# (how to build the tensor, the exact repr PyTorch's rules give)
CASES = [
    (lambda: ember.tensor([1., 2.]), "tensor([1., 2.])"),
    (lambda: ember.tensor([1, 2]), "tensor([1, 2])"),
    (lambda: ember.tensor([True, False]), "tensor([ True, False])"),
    (lambda: ember.tensor(True), "tensor(True)"),
    (lambda: ember.tensor(5), "tensor(5)"),
    (lambda: ember.tensor(3.5), "tensor(3.5000)"),
    (lambda: ember.tensor(0.), "tensor(0.)"),
    (lambda: ember.tensor([0., 0.]), "tensor([0., 0.])"),
    (lambda: ember.tensor([0.1, 2.0]), "tensor([0.1000, 2.0000])"),
    (lambda: ember.tensor([1.5, -2.25]), "tensor([ 1.5000, -2.2500])"),
    (lambda: ember.tensor([-1, 10, 100]), "tensor([ -1,  10, 100])"),
    (lambda: ember.tensor([1e-5, 1e5]), "tensor([1.0000e-05, 1.0000e+05])"),
    (lambda: ember.tensor([1e10, 1.]), "tensor([1.0000e+10, 1.0000e+00])"),
    (lambda: ember.tensor([100000., 1.]), "tensor([1.0000e+05, 1.0000e+00])"),
    (lambda: ember.tensor([123456789.0, 1.5]), "tensor([1.2346e+08, 1.5000e+00])"),
    (lambda: ember.tensor([INF, NAN, 1.]), "tensor([inf, nan, 1.])"),
    (lambda: ember.tensor([NAN]), "tensor([nan])"),
    (lambda: ember.tensor([-INF, 2.5]), "tensor([  -inf, 2.5000])"),
    (lambda: ember.tensor([[0., 1., 2.], [3., 4., 5.]]), "tensor([[0., 1., 2.],\n        [3., 4., 5.]])"),
    (lambda: ember.zeros(2, 2, 2),
     "tensor([[[0., 0.],\n         [0., 0.]],\n\n        [[0., 0.],\n         [0., 0.]]])"),
    (lambda: ember.tensor([1, 2], dtype=ember.float64), "tensor([1., 2.], dtype=ember.float64)"),
    (lambda: ember.tensor([0.1], dtype=ember.float64), "tensor([0.1000], dtype=ember.float64)"),
    (lambda: ember.tensor([1, 2], dtype=ember.int32), "tensor([1, 2], dtype=ember.int32)"),
    (lambda: ember.ones(3, dtype=ember.uint8), "tensor([1, 1, 1], dtype=ember.uint8)"),
    (lambda: ember.tensor([1., 2.], dtype=ember.float16), "tensor([1., 2.], dtype=ember.float16)"),
    (lambda: ember.tensor([0.5, 2.], dtype=ember.bfloat16), "tensor([0.5000, 2.0000], dtype=ember.bfloat16)"),
    (lambda: ember.tensor([1 + 2j, 3 - 1j]), "tensor([1.+2.j, 3.-1.j])"),
    (lambda: ember.tensor(1 + 0j), "tensor(1.+0.j)"),
    (lambda: ember.tensor([1.5 - 0.5j, 2 + 0.25j]), "tensor([1.5000-0.5000j, 2.0000+0.2500j])"),
    (lambda: ember.tensor([1 + 2j], dtype=ember.complex128), "tensor([1.+2.j], dtype=ember.complex128)"),
    (lambda: ember.zeros(2, 3, device="meta"), "tensor(..., device='meta', size=(2, 3))"),
    (lambda: ember.zeros(2, 3, device="meta", dtype=ember.int64),
     "tensor(..., device='meta', size=(2, 3), dtype=ember.int64)"),
    (lambda: ember.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: ember.zeros(2, 0, 3), "tensor([], size=(2, 0, 3))"),
    (lambda: ember.zeros(0), "tensor([])"),
    (lambda: ember.zeros(0, dtype=ember.int64), "tensor([], dtype=ember.int64)"),
    (lambda: ember.empty(0, 3, dtype=ember.bool), "tensor([], size=(0, 3), dtype=ember.bool)"),
    (lambda: ember.arange(10), "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"),
    (lambda: ember.arange(30),
     "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
     "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])"),
    (lambda: ember.arange(18, dtype=ember.int32),
     "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17],\n"
     "       dtype=ember.int32)"),
    (lambda: ember.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (lambda: ember.zeros(100, 100),
     "tensor([[0., 0., 0.,  ..., 0., 0., 0.],\n"
     "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
     "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
     "        ...,\n"
     "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
     "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
     "        [0., 0., 0.,  ..., 0., 0., 0.]])"),
]


@pytest.mark.parametrize("make,expected", CASES, ids=[repr(e)[:40] for _, e in CASES])
def test_repr(make, expected):
    t = make()
    assert repr(t) == expected
    assert str(t) == expected


def test_repr_of_a_strided_view_reads_its_own_elements():
    import numpy as np
    a = np.arange(6, dtype=np.int64).reshape(2, 3).T  # column-major
    assert repr(ember.from_numpy(a)) == "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])"


def test_default_dtype_decides_which_dtype_is_shown():
    old = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert repr(ember.tensor([1., 2.])) == "tensor([1., 2.])"
        assert repr(ember.tensor([1., 2.], dtype=ember.float32)) == "tensor([1., 2.], dtype=ember.float32)"
        assert repr(ember.tensor([1j])) == "tensor([0.+1.j])"
        assert repr(ember.tensor([1j], dtype=ember.complex64)) == "tensor([0.+1.j], dtype=ember.complex64)"
    finally:
        ember.set_default_dtype(old)


@pytest.fixture
def restore_printoptions():
    old = get_printoptions()
    yield
    ember.set_printoptions(**old)


def test_set_printoptions(restore_printoptions):
    ember.set_printoptions(precision=2)
    assert repr(ember.tensor([1.12345])) == "tensor([1.12])"
    ember.set_printoptions(threshold=5)
    assert repr(ember.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    ember.set_printoptions(profile="default")
    assert repr(ember.tensor([1.12345])) == "tensor([1.1235])"
    assert repr(ember.arange(10)) == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"
    ember.set_printoptions(edgeitems=1, threshold=3)
    assert repr(ember.arange(10)) == "tensor([0,  ..., 9])"
    ember.set_printoptions(profile="default", linewidth=20)
    assert repr(ember.arange(8)) == "tensor([0, 1, 2, 3,\n        4, 5, 6, 7])"


def test_sci_mode_option(restore_printoptions):
    ember.set_printoptions(sci_mode=True)
    assert repr(ember.tensor([1.5, 2.])) == "tensor([1.5000e+00, 2.0000e+00])"
    assert repr(ember.tensor([0.])) == "tensor([0.])"  # no nonzero finite value: the option does not apply
    ember.set_printoptions(sci_mode=False)
    # the width is measured in the forced notation (PyTorch 2.x; older versions measured the automatic one)
    assert repr(ember.tensor([1e-5, 1e5])) == "tensor([     0.0000, 100000.0000])"
    ember.set_printoptions(sci_mode=None)
    assert repr(ember.tensor([1e-5, 1e5])) == "tensor([1.0000e-05, 1.0000e+05])"


def test_printoptions_context_and_profiles(restore_printoptions):
    with printoptions(precision=1):
        assert repr(ember.tensor([0.25])) == "tensor([0.2])"
    assert repr(ember.tensor([0.25])) == "tensor([0.2500])"
    ember.set_printoptions(profile="short")
    assert get_printoptions()["precision"] == 2 and get_printoptions()["edgeitems"] == 2
    ember.set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == math.inf
    assert "..." not in repr(ember.arange(5000))


def test_set_printoptions_rejects_bad_values(restore_printoptions):
    with pytest.raises(ValueError, match="profile"):
        ember.set_printoptions(profile="long")
    with pytest.raises(ValueError, match="precision"):
        ember.set_printoptions(precision=-1)
    with pytest.raises(ValueError, match="sci_mode"):
        ember.set_printoptions(sci_mode="yes")


def test_format_of_0dim_uses_the_number():
    assert f"{ember.tensor(2.5):.1f}" == "2.5"
