"""Transforms: forward maps and inverses against NumPy formulas, log |det J| against NumPy finite
differences of those formulas, caching, composition, shapes, and the biject_to / transform_to registries."""
import math

import numpy as np
import pytest
from scipy import stats

import ember.distributions as D
from ember.distributions import constraints
from ember.distributions import transforms as T

from ._helpers import close, n, t

RNG = np.random.default_rng(5)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _stick_breaking(x):
    k = x.shape[-1] + 1
    z = _sigmoid(x - np.log(k - 1 - np.arange(k - 1)))
    rest = np.cumprod(1 - z, -1)
    return np.concatenate([z * np.concatenate([np.ones(x.shape[:-1] + (1,)), rest[..., :-1]], -1), rest[..., -1:]], -1)


def _corr_cholesky(x):
    m = x.shape[-1]
    d = round((0.25 + 2 * m) ** 0.5 + 0.5)
    r = np.zeros(x.shape[:-1] + (d, d))
    rows, cols = np.tril_indices(d, -1)
    r[..., rows, cols] = np.tanh(x)
    y = np.zeros_like(r)
    for i in range(d):
        left = 1.0
        for j in range(i):
            y[..., i, j] = r[..., i, j] * np.sqrt(left)
            left = left - y[..., i, j] ** 2
        y[..., i, i] = np.sqrt(left)
    return y


# transform, NumPy forward, input sampler, the coordinates of y that are free (for the Jacobian)
ELEMENTWISE = {
    "exp": (lambda: T.ExpTransform(), np.exp, lambda s: RNG.normal(size=s)),
    "sigmoid": (lambda: T.SigmoidTransform(), _sigmoid, lambda s: RNG.normal(size=s) * 3),
    "tanh": (lambda: T.TanhTransform(), np.tanh, lambda s: RNG.normal(size=s) * 2),
    "softplus": (lambda: T.SoftplusTransform(), lambda x: np.log1p(np.exp(x)), lambda s: RNG.normal(size=s) * 3),
    "affine": (lambda: T.AffineTransform(t([1.5, -2.0, 0.5]), t([-0.7, 2.0, 3.0])),
               lambda x: np.array([1.5, -2.0, 0.5]) + np.array([-0.7, 2.0, 3.0]) * x, lambda s: RNG.normal(size=s)),
    "affine_number": (lambda: T.AffineTransform(2.0, -3.0), lambda x: 2.0 - 3.0 * x, lambda s: RNG.normal(size=s)),
    "power": (lambda: T.PowerTransform(t([0.5, 2.0, 3.0])), lambda x: x ** np.array([0.5, 2.0, 3.0]),
              lambda s: RNG.uniform(0.2, 3, s)),
    "cdf_normal": (lambda: T.CumulativeDistributionTransform(D.Normal(t(0.5), t(2.0))),
                   lambda x: stats.norm(0.5, 2.0).cdf(x), lambda s: RNG.normal(size=s)),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_forward_inverse_logdet(name):
    make, ref, draw = ELEMENTWISE[name]
    tr = make()
    x = draw((4, 3))
    y = tr(t(x))
    close(y, ref(x), rtol=1e-10)
    close(tr.inv(y), x, rtol=1e-7, atol=1e-9)
    h = 1e-6
    deriv = (ref(x + h) - ref(x - h)) / (2 * h)
    close(tr.log_abs_det_jacobian(t(x), y), np.log(np.abs(deriv)), rtol=1e-6, atol=1e-7)
    assert tr.bijective


def _fd_logdet(fn, x, free):
    """log |det| of the Jacobian of x -> free(fn(x)) by central differences (one batch element)."""
    h = 1e-6
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((free(fn(x + e)) - free(fn(x - e))) / (2 * h))
    return np.linalg.slogdet(np.stack(cols, -1))[1]


def test_stick_breaking():
    tr = T.StickBreakingTransform()
    x = RNG.normal(size=(3, 4))
    y = tr(t(x))
    close(y, _stick_breaking(x), rtol=1e-10)
    close(y.sum(-1), np.ones(3))
    close(tr.inv(y), x, rtol=1e-7, atol=1e-9)
    want = [_fd_logdet(_stick_breaking, x[b], lambda v: v[:-1]) for b in range(3)]
    close(tr.log_abs_det_jacobian(t(x), y), want, rtol=1e-6)
    assert tr.forward_shape((3, 4)) == (3, 5) and tr.inverse_shape((3, 5)) == (3, 4)
    close(tr(t(np.zeros(4))), np.full(5, 0.2))  # 0 maps to the simplex's center


def test_corr_cholesky():
    tr = T.CorrCholeskyTransform()
    x = RNG.normal(size=(2, 6))
    y = tr(t(x))
    close(y, _corr_cholesky(x), rtol=1e-9, atol=1e-12)
    assert bool(constraints.corr_cholesky.check(y).all())
    close(tr.inv(y), x, rtol=1e-6, atol=1e-8)
    rows, cols = np.tril_indices(4, -1)
    want = [_fd_logdet(_corr_cholesky, x[b], lambda m: m[rows, cols]) for b in range(2)]
    close(tr.log_abs_det_jacobian(t(x), y), want, rtol=1e-6)
    assert tr.forward_shape((2, 6)) == (2, 4, 4) and tr.inverse_shape((2, 4, 4)) == (2, 6)
    with pytest.raises(ValueError, match="Input is not a flattend lower-diagonal number"):
        tr.forward_shape((5,))


def test_softmax_lower_cholesky_positive_definite():
    x = RNG.normal(size=(2, 4))
    y = T.SoftmaxTransform()(t(x))
    close(y, np.exp(x) / np.exp(x).sum(-1, keepdims=True), rtol=1e-12)
    close(T.SoftmaxTransform().inv(y), x - np.log(np.exp(x).sum(-1, keepdims=True)), rtol=1e-10)
    m = RNG.normal(size=(2, 3, 3))
    lc = T.LowerCholeskyTransform()(t(m))
    close(lc, np.tril(m, -1) + np.stack([np.diag(np.exp(np.diag(a))) for a in m]), rtol=1e-12)
    close(T.LowerCholeskyTransform().inv(lc), np.tril(m), rtol=1e-12, atol=1e-14)
    pd = T.PositiveDefiniteTransform()(t(m))
    low = n(lc)
    close(pd, low @ np.swapaxes(low, -1, -2), rtol=1e-12)
    close(T.PositiveDefiniteTransform().inv(pd), np.tril(m), rtol=1e-9, atol=1e-12)


def test_abs_transform_is_not_bijective():
    tr = T.AbsTransform()
    close(tr(t([-2.0, 3.0])), [2.0, 3.0])
    close(tr.inv(t([2.0])), [2.0])
    assert not tr.bijective


def test_compose_sums_log_dets_and_inverts():
    tr = T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.ExpTransform(), T.AffineTransform(1.0, 3.0)])
    x = RNG.normal(size=5)
    y = tr(t(x))
    close(y, 1 + 3 * np.exp(0.5 + 2 * x), rtol=1e-12)
    close(tr.inv(y), x, rtol=1e-9)
    close(tr.log_abs_det_jacobian(t(x), y), np.log(2.0 * 3.0 * np.exp(0.5 + 2 * x)), rtol=1e-10)
    assert tr.inv.inv is tr
    assert tr.sign == 1
    assert T.identity_transform(t([1.0])).tolist() == [1.0]
    # Event dims: a stick-breaking after an elementwise map makes the whole composition vector-valued.
    c = T.ComposeTransform([T.ExpTransform(), T.StickBreakingTransform()])
    assert c.domain.event_dim == 1 and c.codomain.event_dim == 1
    x2 = RNG.normal(size=(2, 3))
    ld = c.log_abs_det_jacobian(t(x2), c(t(x2)))
    want = [_fd_logdet(lambda v: _stick_breaking(np.exp(v)), x2[b], lambda v: v[:-1]) for b in range(2)]
    close(ld, want, rtol=1e-6)


def test_caching():
    tr = T.ExpTransform(cache_size=1)
    x = t([0.1, 2.0])
    y = tr(x)
    assert tr(x) is y and tr.inv(y) is x
    assert T.ExpTransform().with_cache(1)._cache_size == 1
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)
    # Without the cache, inverting recomputes.
    tr0 = T.ExpTransform()
    assert tr0.inv(tr0(x)) is not x


def test_independent_reshape_cat_stack():
    base = T.ExpTransform()
    ind = T.IndependentTransform(base, 1)
    x = RNG.normal(size=(2, 3))
    close(ind.log_abs_det_jacobian(t(x), ind(t(x))), x.sum(-1), rtol=1e-12)
    assert ind.domain.event_dim == 1
    r = T.ReshapeTransform((2, 3), (3, 2))
    assert tuple(r(t(RNG.normal(size=(4, 2, 3)))).shape) == (4, 3, 2)
    close(r.log_abs_det_jacobian(t(np.zeros((4, 2, 3))), t(np.zeros((4, 3, 2)))), np.zeros(4))
    with pytest.raises(ValueError, match="different numbers of elements"):
        T.ReshapeTransform((2, 3), (5,))
    cat = T.CatTransform([T.ExpTransform(), T.AffineTransform(0.0, 2.0)], dim=0, lengths=[2, 1])
    x3 = RNG.normal(size=3)
    close(cat(t(x3)), np.concatenate([np.exp(x3[:2]), 2 * x3[2:]]), rtol=1e-12)
    close(cat.log_abs_det_jacobian(t(x3), cat(t(x3))), np.concatenate([x3[:2], [math.log(2)]]), rtol=1e-12)
    close(cat.inv(cat(t(x3))), x3, rtol=1e-12)
    stack = T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=1)
    x4 = RNG.normal(size=(3, 2))
    close(stack(t(x4)), np.stack([np.exp(x4[:, 0]), np.tanh(x4[:, 1])], 1), rtol=1e-12)
    close(stack.inv(stack(t(x4))), x4, rtol=1e-9)


@pytest.mark.parametrize("constraint, check", [
    (constraints.real, lambda y: np.isfinite(y).all()),
    (constraints.positive, lambda y: (y > 0).all()),
    (constraints.greater_than(2.5), lambda y: (y > 2.5).all()),
    (constraints.greater_than_eq(-1.0), lambda y: (y >= -1).all()),
    (constraints.less_than(1.0), lambda y: (y < 1).all()),
    (constraints.interval(-2.0, 3.0), lambda y: ((y > -2) & (y < 3)).all()),
    (constraints.unit_interval, lambda y: ((y > 0) & (y < 1)).all()),
    (constraints.half_open_interval(0.0, 4.0), lambda y: ((y >= 0) & (y < 4)).all()),
])
def test_biject_to_elementwise(constraint, check):
    for registry in (D.biject_to, D.transform_to):
        tr = registry(constraint)
        x = RNG.normal(size=(4, 3)) * 2
        y = tr(t(x))
        assert check(n(y)) and bool(constraint.check(y).all())
        close(tr.inv(y), x, rtol=1e-6, atol=1e-8)


def test_biject_to_structured():
    x = t(RNG.normal(size=(2, 3)))
    assert isinstance(D.biject_to(constraints.simplex), T.StickBreakingTransform)
    assert isinstance(D.transform_to(constraints.simplex), T.SoftmaxTransform)
    assert bool(constraints.simplex.check(D.biject_to(constraints.simplex)(x)).all())
    assert bool(constraints.corr_cholesky.check(D.biject_to(constraints.corr_cholesky)(x)).all())
    m = t(RNG.normal(size=(2, 3, 3)))
    assert bool(constraints.lower_cholesky.check(D.biject_to(constraints.lower_cholesky)(m)).all())
    assert bool(constraints.positive_definite.check(D.transform_to(constraints.positive_definite)(m)).all())
    ind = D.biject_to(constraints.independent(constraints.positive, 1))
    assert isinstance(ind, T.IndependentTransform) and ind.domain.event_dim == 1
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        D.biject_to(constraints.boolean)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
        D.biject_to.register(int, lambda c: None)


def test_biject_to_support_of_families():
    # biject_to(d.support) maps the reals into each family's support, where log_prob is finite.
    for d in (D.Gamma(t(2.0), t(1.0)), D.Beta(t(2.0), t(3.0)), D.Uniform(t(-1.0), t(2.0)),
              D.Dirichlet(t([1.0, 2.0, 3.0])), D.Pareto(t(1.5), t(2.0)), D.LKJCholesky(3, t(1.0))):
        shape = d.event_shape
        tr = D.biject_to(d.support)
        x = t(RNG.normal(size=tr.inverse_shape(tuple(shape))))
        assert np.isfinite(n(d.log_prob(tr(x)))).all()
