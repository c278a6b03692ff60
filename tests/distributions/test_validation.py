"""Argument and sample validation with PyTorch's ValueError messages, set_default_validate_args,
constraints' checks, shapes (batch/event, expand, sample shapes), repr and the parameter forms."""
import re

import numpy as np
import pytest
import scipy.stats as st

import ember
import ember.distributions as D
from ember.distributions import constraints

from ._helpers import close, n, t


def test_parameter_constraint_message():
    msg = ("Expected parameter scale (Tensor of shape ()) of distribution Normal(loc: 0.0, scale: -1.0) to satisfy "
           "the constraint GreaterThan(lower_bound=0.0), but found invalid values:\n-1.0")
    with pytest.raises(ValueError, match=re.escape(msg)):
        D.Normal(0.0, -1.0)
    msg = ("Expected parameter low (Tensor of shape ()) of distribution Uniform(low: 1.0, high: 0.0) to satisfy the "
           "constraint LessThan(upper_bound=0.0), but found invalid values:\n1.0")
    with pytest.raises(ValueError, match=re.escape(msg)):
        D.Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match=r"Expected parameter probs \(Tensor of shape \(1, 2\)\) of distribution "
                                         r"Categorical\(probs: ember.Size\(\[1, 2\]\)\) to satisfy the constraint "
                                         r"Simplex\(\)"):
        D.Categorical(t([[0.5, -0.5]]))
    with pytest.raises(ValueError, match=r"Expected parameter probs \(Tensor of shape \(1,\)\) of distribution "
                                         r"Geometric\(probs: tensor\(\[0\.\], dtype=ember.float64\)\) to be positive"):
        D.Geometric(t([0.0]))


@pytest.mark.parametrize("make", [
    lambda: D.Gamma(t([-1.0]), t([1.0])), lambda: D.Beta(t([1.0]), t([0.0])), lambda: D.Bernoulli(t([1.5])),
    lambda: D.Poisson(t([-0.5])), lambda: D.Binomial(t([2.5]), t([0.5])), lambda: D.Dirichlet(t([1.0, -1.0])),
    lambda: D.MultivariateNormal(t([0.0, 0.0]), t([[1.0, 2.0], [2.0, 1.0]])),
    lambda: D.StudentT(t([0.0])), lambda: D.VonMises(t([0.0]), t([0.0])), lambda: D.LKJCholesky(2, t(-1.0)),
    lambda: D.Pareto(t([1.0]), t([-2.0])), lambda: D.Weibull(t([1.0]), t([0.0])),
    lambda: D.NegativeBinomial(t([-1.0]), t([0.5])), lambda: D.ContinuousBernoulli(t([1.2]), validate_args=True),
])
def test_invalid_parameters_raise(make):
    with pytest.raises(ValueError):
        make()


def test_sample_validation_messages():
    d = D.Exponential(ember.tensor([1.0]))
    msg = ("Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThanEq(lower_bound=0.0)) "
           "of the distribution Exponential(rate: tensor([1.])), but found invalid values:\ntensor([-1.])")
    with pytest.raises(ValueError, match=re.escape(msg)):
        d.log_prob(ember.tensor([-1.0]))
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        D.Normal(0.0, 1.0).log_prob(0.5)
    with pytest.raises(ValueError, match=re.escape("The right-most size of value must match event_shape: "
                                                   "ember.Size([3]) vs ember.Size([2]).")):
        D.Dirichlet(t([1.0, 2.0])).log_prob(t([0.5, 0.5, 0.0]))
    with pytest.raises(ValueError, match="Value is not broadcastable with batch_shape\\+event_shape"):
        D.Normal(t([0.0, 1.0]), t([1.0, 1.0])).log_prob(t([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="within the support"):
        D.Bernoulli(t([0.3])).log_prob(t([0.5]))
    with pytest.raises(ValueError, match="within the support"):
        D.Categorical(t([0.3, 0.7])).log_prob(ember.tensor([2]))


def test_validate_args_switches():
    assert np.isnan(n(D.Normal(0.0, -1.0, validate_args=False).log_prob(t(0.0))))
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(0.0, -1.0)
        D.Exponential(t([1.0])).log_prob(t([-1.0]))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")


def test_either_probs_or_logits():
    for cls in (D.Bernoulli, D.Categorical, D.Geometric, D.OneHotCategorical):
        with pytest.raises(ValueError, match=re.escape("Either `probs` or `logits` must be specified, but not both.")):
            cls()
        with pytest.raises(ValueError, match="but not both"):
            cls(t([0.5, 0.5]), t([0.0, 0.0]))
    with pytest.raises(ValueError, match="`probs` parameter must be at least one-dimensional."):
        D.Categorical(t(0.5))
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        D.MultivariateNormal(t([0.0]))
    with pytest.raises(ValueError, match="loc must be at least one-dimensional."):
        D.MultivariateNormal(t(0.0), t([[1.0]]))
    with pytest.raises(ValueError, match="Expected dim to be an integer greater than or equal to 2. Found dim=1."):
        D.LKJCholesky(1)
    with pytest.raises(ValueError, match="Expected reinterpreted_batch_ndims <= len\\(base_distribution.batch_shape\\)"
                                         ", actual 2 vs 1"):
        D.Independent(D.Normal(t([0.0, 1.0]), 1.0), 2)
    with pytest.raises(ValueError, match="transforms must be a Transform or list"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), "exp")
    with pytest.raises(ValueError, match="The Mixture distribution needs to be an  instance"):
        D.MixtureSameFamily(D.Normal(t([0.0]), 1.0), D.Normal(t([0.0]), 1.0))
    with pytest.raises(ValueError, match="does not equal `component_distribution.batch_shape\\[-1\\]`"):
        D.MixtureSameFamily(D.Categorical(t([0.5, 0.5])), D.Normal(t([0.0, 1.0, 2.0]), 1.0))


def test_logits_probs_roundtrip():
    p = np.array([0.1, 0.5, 0.9])
    logit = np.log(p) - np.log1p(-p)
    close(D.Bernoulli(logits=t(logit)).probs, p, rtol=1e-12)
    close(D.Bernoulli(probs=t(p)).logits, logit, rtol=1e-10)
    close(D.utils.probs_to_logits(t(p), is_binary=True), logit, rtol=1e-10)
    close(D.utils.logits_to_probs(t(logit), is_binary=True), p, rtol=1e-12)
    w = np.array([1.0, 2.0, 5.0])
    close(D.utils.logits_to_probs(t(np.log(w))), w / w.sum(), rtol=1e-12)
    eps = np.finfo(np.float64).eps
    close(D.utils.clamp_probs(t([0.0, 1.0, 0.5])), [eps, 1 - eps, 0.5])
    # Categorical normalizes its logits.
    close(D.Categorical(logits=t(np.log(w))).logits, np.log(w / w.sum()), rtol=1e-12)
    a, b = D.utils.broadcast_all(t([1.0, 2.0]), 3.0)
    assert tuple(b.shape) == (2,) and b.dtype == ember.float64


def test_shapes_expand_and_samples():
    d = D.Normal(t([[0.0], [1.0]]), t([1.0, 2.0, 3.0]))
    assert tuple(d.batch_shape) == (2, 3) and tuple(d.event_shape) == ()
    assert tuple(d.sample().shape) == (2, 3) and tuple(d.sample((4, 5)).shape) == (4, 5, 2, 3)
    e = d.expand((7, 2, 3))
    assert tuple(e.batch_shape) == (7, 2, 3) and tuple(e.sample((2,)).shape) == (2, 7, 2, 3)
    close(e.log_prob(t(0.5)), np.broadcast_to(st.norm([[0.0], [1.0]], [1.0, 2.0, 3.0]).logpdf(0.5), (7, 2, 3)),
          rtol=1e-12)
    for dist in (D.Dirichlet(t([1.0, 2.0, 3.0])), D.MultivariateNormal(t([0.0, 1.0]), t(np.eye(2))),
                 D.OneHotCategorical(t([0.2, 0.8])), D.Categorical(t([0.2, 0.8])), D.Wishart(t(3.0), t(np.eye(2))),
                 D.Independent(D.Normal(t([0.0, 1.0]), t([1.0, 1.0])), 1), D.LogNormal(t(0.0), t(1.0)),
                 D.Beta(t(2.0), t(3.0)), D.Binomial(t(5.0), t(0.3)), D.RelaxedOneHotCategorical(t(0.5), t([0.5, 0.5])),
                 D.LKJCholesky(3, t(2.0)), D.Gumbel(t(0.0), t(1.0)), D.StudentT(t(3.0))):
        ex = dist.expand((4,))
        assert tuple(ex.batch_shape) == (4,) and ex.event_shape == dist.event_shape
        s = ex.sample((2,))
        assert tuple(s.shape) == (2, 4) + tuple(dist.event_shape)
        assert tuple(ex.log_prob(s).shape) == (2, 4)
    with pytest.warns(FutureWarning, match="sample_n"):
        assert tuple(d.sample_n(3).shape) == (3, 2, 3)


def test_repr():
    assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(D.Normal(t([0.0, 1.0]), 1.0)) == "Normal(loc: ember.Size([2]), scale: ember.Size([2]))"
    assert repr(D.Categorical(t([0.2, 0.3, 0.5]))) == "Categorical(probs: ember.Size([3]))"
    assert repr(constraints.interval(0.0, 1.0)) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert repr(constraints.independent(constraints.real, 1)) == "IndependentConstraint(Real(), 1)"


def test_constraints_check():
    v = t([-1.0, 0.0, 0.5, 1.0, 2.0])
    assert constraints.unit_interval.check(v).tolist() == [False, True, True, True, False]
    assert constraints.positive.check(v).tolist() == [False, False, True, True, True]
    assert constraints.nonnegative_integer.check(v).tolist() == [False, True, False, True, True]
    assert constraints.integer_interval(0, 1).check(v).tolist() == [False, True, False, True, False]
    assert constraints.half_open_interval(0.0, 1.0).check(v).tolist() == [False, True, True, False, False]
    assert constraints.boolean.check(v).tolist() == [False, True, False, True, False]
    assert constraints.real.check(t([1.0, float("nan")])).tolist() == [True, False]
    assert constraints.simplex.check(t([[0.2, 0.8], [0.5, 0.6]])).tolist() == [True, False]
    assert constraints.one_hot.check(t([[0.0, 1.0], [1.0, 1.0]])).tolist() == [True, False]
    assert constraints.multinomial(3).check(t([[1.0, 2.0], [2.0, 2.0]])).tolist() == [True, False]
    m = t([[[1.0, 0.0], [0.5, 2.0]], [[1.0, 0.3], [0.5, 2.0]], [[-1.0, 0.0], [0.5, 2.0]]])
    assert constraints.lower_triangular.check(m).tolist() == [True, False, True]
    assert constraints.lower_cholesky.check(m).tolist() == [True, False, False]
    pd = t([[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]])
    assert constraints.positive_definite.check(pd).tolist() == [True, False]
    assert constraints.positive_semidefinite.check(pd).tolist() == [True, False]
    assert constraints.symmetric.check(pd).tolist() == [True, True]
    assert constraints.square.check(t(np.zeros((3, 2, 2)))).tolist() == [True] * 3
    pos_rows = constraints.independent(constraints.positive, 1)
    assert pos_rows.check(t([[1.0, 2.0], [1.0, -2.0]])).tolist() == [True, False]
    c = constraints.cat([constraints.positive, constraints.real], 0, [1, 2])
    assert c.check(t([1.0, -3.0, 4.0])).tolist() == [True, True, True]
    s = constraints.stack([constraints.positive, constraints.unit_interval], 1)
    assert s.check(t([[2.0, 0.5], [2.0, 1.5]])).tolist() == [[True, True], [True, False]]
    assert constraints.is_dependent(constraints.dependent) and not constraints.is_dependent(constraints.real)
    assert constraints.is_dependent(D.Uniform.support) and constraints.is_dependent(D.Binomial.support)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        constraints.dependent.check(t([1.0]))
    with pytest.raises(NotImplementedError, match="cannot be determined statically"):
        constraints.dependent.event_dim
    assert constraints.dependent(is_discrete=True, event_dim=1).event_dim == 1
    assert constraints.simplex.event_dim == 1 and constraints.corr_cholesky.event_dim == 2
    assert constraints.nonnegative_integer.is_discrete and not constraints.real.is_discrete
    assert D.Binomial(t(5.0), t(0.5)).support.upper_bound.tolist() == 5.0
    mix = D.MixtureSameFamily(D.Categorical(t([0.3, 0.7])), D.Exponential(t([1.0, 2.0])))
    assert mix.support.check(t([1.0, -1.0])).tolist() == [True, False]


def test_missing_support_warns():
    class NoSupport(D.Distribution):
        arg_constraints = {}

        def log_prob(self, value):
            self._validate_sample(value)
            return value

    with pytest.warns(UserWarning, match="does not define `support`"):
        NoSupport(validate_args=True).log_prob(t(1.0))

    class NoArgs(D.Distribution):
        pass

    with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
        NoArgs(validate_args=True)
