"""Backward formulas on the shapes the generic op tests do not reach: einsum's repeated, broadcast
and summed-only labels, tensordot with unordered dims, the stack family on 0-d and 1-d inputs,
quantile with q tensors and NaN, and the like. Finite differences (gradcheck) are the reference."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(11)


def leaf(*shape, dtype=np.float64):
    a = rng.standard_normal(shape)
    if dtype == np.complex128:
        a = a + 1j * rng.standard_normal(shape)
    return ember.tensor(a.astype(dtype), requires_grad=True)


def both(fn, *inputs):
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("eq,shapes", [
    ("ii->i", [(3, 3)]),               # a diagonal
    ("ii", [(3, 3)]),                  # a trace, implicit output
    ("ij->i", [(2, 3)]),               # a label only one operand has
    ("ij,jk", [(2, 3), (3, 2)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),  # broadcast batch dims, one of size 1
    ("bii,bj->bij", [(2, 2, 2), (2, 3)]),
    ("i,j,k->ijk", [(2,), (3,), (2,)]),
])
def test_einsum_gradients(eq, shapes):
    both(lambda *ts: ember.einsum(eq, *ts), *[leaf(*s) for s in shapes])


def test_einsum_complex_gradients():
    both(lambda a, b: ember.einsum("ij,jk->ik", a, b), leaf(2, 3, dtype=np.complex128), leaf(3, 2, dtype=np.complex128))


def test_tensordot_with_unordered_dims():
    both(lambda a, b: ember.tensordot(a, b, dims=([2, 0], [0, 1])), leaf(3, 2, 4), leaf(4, 3, 2))


@pytest.mark.parametrize("sa,sb", [((2, 3), (3,)), ((), (3,)), ((2, 1, 3), (4, 3))])
def test_inner(sa, sb):
    both(ember.inner, leaf(*sa), leaf(*sb))


@pytest.mark.parametrize("sa,sb", [((2, 3), (3,)), ((), (3,)), ((2, 2), (2, 3, 1))])
def test_kron(sa, sb):
    both(ember.kron, leaf(*sa), leaf(*sb))


@pytest.mark.parametrize("fn", [ember.hstack, ember.vstack, ember.dstack, ember.column_stack])
def test_stack_family_on_low_dims(fn):
    both(lambda a, b, c: fn([a, b, c]), leaf(3), leaf(3), leaf(3))
    both(lambda a, b: fn([a, b]), leaf(2, 3), leaf(2, 3))


def test_repeat_and_tile():
    both(lambda t: t.repeat(2, 1, 3), leaf(2, 2))
    both(lambda t: ember.tile(t, (2,)), leaf(2, 2))


def test_diff_with_prepend_append_and_order():
    x, p, a = leaf(2, 3), leaf(2, 1), leaf(2, 2)
    both(lambda x, p, a: ember.diff(x, n=2, dim=1, prepend=p, append=a), x, p, a)
    both(lambda x: ember.diff(x, n=5, dim=1), leaf(2, 3))  # more steps than elements: empty


def test_take_along_dim_broadcasts_and_flattens():
    idx = ember.tensor([[0, 2], [1, 1]])
    both(lambda t: ember.take_along_dim(t, idx, dim=1), leaf(2, 3))
    both(lambda t: ember.take_along_dim(t, ember.tensor([[2], [0]]), dim=0), leaf(3, 4))  # broadcast
    both(lambda t: ember.take_along_dim(t, ember.tensor([5, 0, 5])), leaf(2, 3))  # dim=None, repeated


@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_gradients(interp):
    x = leaf(3, 5)
    both(lambda t: ember.quantile(t, 0.3, dim=1, keepdim=True, interpolation=interp), x)
    q = ember.tensor([0.2, 0.65], dtype=ember.float64, requires_grad=True)
    both(lambda t, q: ember.quantile(t, q, dim=0, interpolation=interp), x, q)


def test_nanquantile_skips_nan_and_gives_it_no_gradient():
    x = ember.tensor([[1.0, np.nan, 3.0, 0.5, 2.0], [np.nan] * 5], requires_grad=True)
    y = ember.nanquantile(x, 0.5, dim=1)  # row 0: halfway between 1 and 2; row 1: NaN
    y[0].backward()
    assert np.allclose(x.grad.numpy(), [[0.5, 0, 0, 0, 0.5], [0, 0, 0, 0, 0]])


def test_logcumsumexp_does_not_overflow():
    x = ember.tensor([800.0, -800.0, 799.0, 0.0], dtype=ember.float64, requires_grad=True)
    ember.logcumsumexp(x, 0).sum().backward()
    # d/dx_i sum_j lse_j = sum_{j >= i} exp(x_i - lse_j)
    xs = x.detach().numpy()
    lse = np.logaddexp.accumulate(xs)
    want = [sum(np.exp(xs[i] - lse[j]) for j in range(i, 4)) for i in range(4)]
    assert np.allclose(x.grad.numpy(), want)
    both(lambda t: ember.logcumsumexp(t, 1), leaf(2, 4))


def test_polar_and_angle():
    both(ember.polar, ember.tensor([0.5, 2.0], dtype=ember.float64, requires_grad=True), leaf(2))
    both(ember.angle, leaf(3, dtype=np.complex128))


def test_masked_select_and_scatter_broadcast():
    mask = ember.tensor([True, False, True])
    both(lambda t: ember.masked_select(t, mask), leaf(2, 3))
    both(lambda t, s: t.masked_scatter(mask, s), leaf(2, 3), leaf(7))


def test_scatter_src_larger_than_index():
    idx = ember.tensor([[1, 0]])
    both(lambda t, s: ember.scatter(t, 1, idx, s), leaf(2, 2), leaf(2, 3))


def test_polygamma_matches_scipy_and_differentiates():
    from scipy import special
    x = np.array([0.3, 1.0, 2.5, 11.0, -1.5])
    for n in range(6):
        assert np.allclose(ember.polygamma(n, ember.tensor(x)).numpy(), special.polygamma(n, x), rtol=1e-12)
    both(lambda t: ember.polygamma(2, t), ember.tensor([0.7, 3.0], dtype=ember.float64, requires_grad=True))
    both(ember.digamma, ember.tensor([0.7, 3.0], dtype=ember.float64, requires_grad=True))
    with pytest.raises(ValueError, match="does not support negative n"):
        ember.polygamma(-1, ember.tensor(x))
