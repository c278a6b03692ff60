"""What the shared bases of ember.distributions must keep as PyTorch has it: the full kl_divergence
registry and its infinite pairs, the probs | logits families' expand and parameter forms, the half
families' value checks, constraint bounds and reprs, parameter-free transforms' equality, and the
registries' recursion into composite constraints. References are PyTorch's documented values and
messages written out, NumPy and SciPy."""
import re

import numpy as np
import pytest
import scipy.stats as st

import ember
import ember.distributions as D
from ember.distributions import constraints
from ember.distributions import transforms as T

from ._helpers import close, n, t

# torch.distributions.kl's registered (p, q) pairs (PyTorch 2.x), by class name.
PYTORCH_KL_PAIRS = {
    "Bernoulli": ["Bernoulli", "Poisson"],
    "Beta": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Normal", "Pareto", "Uniform"],
    "Binomial": ["Binomial"], "Categorical": ["Categorical"], "Cauchy": ["Cauchy"],
    "ContinuousBernoulli": ["ContinuousBernoulli", "Exponential", "Normal", "Pareto", "Uniform"],
    "Dirichlet": ["Dirichlet"],
    "Exponential": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Gumbel", "Normal", "Pareto", "Uniform"],
    "ExponentialFamily": ["ExponentialFamily"],
    "Gamma": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Gumbel", "Normal", "Pareto", "Uniform"],
    "Geometric": ["Geometric"],
    "Gumbel": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Gumbel", "Normal", "Pareto", "Uniform"],
    "HalfNormal": ["HalfNormal"], "Independent": ["Independent"],
    "Laplace": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Laplace", "Normal", "Pareto", "Uniform"],
    "LowRankMultivariateNormal": ["LowRankMultivariateNormal", "MultivariateNormal"],
    "MultivariateNormal": ["LowRankMultivariateNormal", "MultivariateNormal"],
    "Normal": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Gumbel", "Laplace", "Normal", "Pareto",
               "Uniform"],
    "OneHotCategorical": ["OneHotCategorical"],
    "Pareto": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Normal", "Pareto", "Uniform"],
    "Poisson": ["Bernoulli", "Binomial", "Poisson"],
    "TransformedDistribution": ["TransformedDistribution"],
    "Uniform": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Gumbel", "Normal", "Pareto", "Uniform"],
}

# The pairs PyTorch answers with +inf everywhere (q's support misses part of p's).
PYTORCH_INFINITE_PAIRS = {
    "Beta": ["Pareto"], "ContinuousBernoulli": ["Pareto"],
    "Exponential": ["Beta", "ContinuousBernoulli", "Pareto", "Uniform"],
    "Gamma": ["Beta", "ContinuousBernoulli", "Pareto", "Uniform"],
    "Gumbel": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Pareto", "Uniform"],
    "Laplace": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Pareto", "Uniform"],
    "Normal": ["Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Pareto", "Uniform"],
    "Pareto": ["Beta", "ContinuousBernoulli", "Uniform"],
    "Poisson": ["Bernoulli", "Binomial"],
}

# A batch-of-2 member of each family the infinite pairs name.
MAKE = {
    "Bernoulli": lambda: D.Bernoulli(t([0.3, 0.6])),
    "Beta": lambda: D.Beta(t([2.0, 0.5]), t([1.5, 3.0])),
    "Binomial": lambda: D.Binomial(5, t([0.3, 0.6])),
    "ContinuousBernoulli": lambda: D.ContinuousBernoulli(t([0.2, 0.7])),
    "Exponential": lambda: D.Exponential(t([0.5, 2.0])),
    "Gamma": lambda: D.Gamma(t([2.0, 0.5]), t([1.0, 3.0])),
    "Gumbel": lambda: D.Gumbel(t([0.0, 1.0]), t([1.0, 2.0])),
    "Laplace": lambda: D.Laplace(t([0.0, 1.0]), t([1.0, 2.0])),
    "Normal": lambda: D.Normal(t([0.0, 1.0]), t([1.0, 2.0])),
    "Pareto": lambda: D.Pareto(t([1.0, 2.0]), t([3.0, 1.5])),
    "Poisson": lambda: D.Poisson(t([1.0, 4.0])),
    "Uniform": lambda: D.Uniform(t([-1.0, 0.5]), t([1.0, 2.0])),
}


def test_kl_registry_holds_pytorchs_pairs():
    from ember.distributions._kl_registry import _KL_REGISTRY
    ours = {(p.__name__, q.__name__) for p, q in _KL_REGISTRY  # not what other tests register
            if p.__module__.startswith("ember.distributions") and q.__module__.startswith("ember.distributions")}
    want = {(p, q) for p, qs in PYTORCH_KL_PAIRS.items() for q in qs}
    assert ours == want


@pytest.mark.parametrize("pair", [(p, q) for p, qs in PYTORCH_INFINITE_PAIRS.items() for q in qs],
                         ids=lambda pair: "-".join(pair))
def test_infinite_pairs(pair):
    kl = D.kl_divergence(MAKE[pair[0]](), MAKE[pair[1]]())
    assert tuple(kl.shape) == (2,) and kl.dtype == ember.float64
    assert np.isposinf(n(kl)).all()


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# family, its extra leading arguments, whether PyTorch gives it param_shape
PROBS_LOGITS = {
    "Bernoulli": (D.Bernoulli, (), True),
    "Binomial": (D.Binomial, (t([[3.0], [7.0]]),), True),
    "NegativeBinomial": (D.NegativeBinomial, (t([[3.0], [7.0]]),), True),
    "Geometric": (D.Geometric, (), False),
    "ContinuousBernoulli": (D.ContinuousBernoulli, (), True),
    "LogitRelaxedBernoulli": (lambda *a, **k: D.LogitRelaxedBernoulli(t(0.5), *a, **k), (), True),
}


@pytest.mark.parametrize("name", sorted(PROBS_LOGITS))
def test_probs_or_logits_forms_and_expand(name):
    make, extra, has_param_shape = PROBS_LOGITS[name]
    logits = np.array([[-1.5, 0.3, 2.0]])
    from_logits = make(*extra, logits=t(logits))
    shape = (2, 3) if extra else (1, 3)  # the counts (2, 1) broadcast with the parameter (1, 3)
    close(from_logits.probs, np.broadcast_to(_sigmoid(logits), shape), rtol=1e-12)
    probs = np.array([[0.2, 0.45, 0.9]])
    from_probs = make(*extra, probs=t(probs), validate_args=True)
    close(from_probs.logits, np.broadcast_to(np.log(probs) - np.log1p(-probs), shape), rtol=1e-12)
    assert tuple(from_probs.batch_shape) == shape
    assert hasattr(from_probs, "param_shape") == has_param_shape
    if has_param_shape:
        assert tuple(from_probs.param_shape) == tuple(from_probs.batch_shape)
    with pytest.raises(ValueError, match=re.escape("Either `probs` or `logits` must be specified, but not both.")):
        make(*extra)
    for d in (from_logits, from_probs):
        wide = (4,) + tuple(d.batch_shape)
        ex = d.expand(wide)
        assert type(ex) is type(d) and tuple(ex.batch_shape) == wide and ex._validate_args == d._validate_args
        close(ex.probs[2], n(d.probs).reshape(tuple(d.batch_shape)), rtol=1e-12)
        if has_param_shape:
            assert tuple(ex.param_shape) == wide
        for extra_name in ("total_count",):
            if hasattr(d, extra_name):
                assert tuple(getattr(ex, extra_name).shape) == wide
                assert getattr(ex, extra_name).dtype == ember.float64


def test_binomial_counts_take_the_probabilities_dtype():
    d = D.Binomial(ember.tensor([4, 9]), probs=ember.tensor([0.5, 0.25], dtype=ember.float32))
    assert d.total_count.dtype == ember.float32 and d.total_count.tolist() == [4.0, 9.0]
    close(d.mean, [2.0, 2.25])


def test_expand_of_a_subclass_with_its_own_init_is_refused():
    class MyNormal(D.Normal):
        def __init__(self, loc):
            super().__init__(loc, 1.0)

    msg = ("Subclass MyNormal of Normal that defines a custom __init__ method must also define a custom .expand() "
           "method.")
    with pytest.raises(NotImplementedError, match=re.escape(msg)):
        MyNormal(t([0.0, 1.0])).expand((3, 2))


@pytest.mark.parametrize("family, ref", [(D.HalfNormal, st.halfnorm), (D.HalfCauchy, st.halfcauchy)])
def test_half_families(family, ref):
    # PyTorch checks the value's type before converting it: a number is refused while validating.
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        family(t(1.5)).log_prob(0.5)
    d = family(t([1.5, 0.4]), validate_args=False)
    close(d.log_prob(t([0.5, 1.2])), ref(scale=[1.5, 0.4]).logpdf([0.5, 1.2]), rtol=1e-12)
    assert np.isneginf(n(d.log_prob(t([-0.5, -1.0])))).all()
    if family is D.HalfCauchy:  # PyTorch's HalfCauchy converts a number when not validating
        close(family(t(1.5), validate_args=False).log_prob(0.5), ref(scale=1.5).logpdf(0.5), rtol=1e-12)
    with pytest.raises(ValueError, match="within the support"):
        family(t([1.0])).log_prob(t([-0.5]))
    assert family.arg_constraints == {"scale": constraints.positive} and family.has_rsample
    assert family.support is constraints.nonnegative
    ex = family(t([1.5, 0.4])).expand((3, 2))
    assert type(ex) is family and tuple(ex.batch_shape) == (3, 2)
    close(ex.icdf(t([0.25, 0.75])), ref(scale=[[1.5, 0.4]] * 3).ppf([0.25, 0.75]), rtol=1e-10)
    close(ex.mode, np.zeros((3, 2)))


@pytest.mark.parametrize("make, text, attrs", [
    (lambda: constraints.greater_than(2.0), "GreaterThan(lower_bound=2.0)", {"lower_bound": 2.0}),
    (lambda: constraints.greater_than_eq(-1), "GreaterThanEq(lower_bound=-1)", {"lower_bound": -1}),
    (lambda: constraints.less_than(3.5), "LessThan(upper_bound=3.5)", {"upper_bound": 3.5}),
    (lambda: constraints.interval(0.0, 2.0), "Interval(lower_bound=0.0, upper_bound=2.0)",
     {"lower_bound": 0.0, "upper_bound": 2.0}),
    (lambda: constraints.half_open_interval(1, 4), "HalfOpenInterval(lower_bound=1, upper_bound=4)",
     {"lower_bound": 1, "upper_bound": 4}),
    (lambda: constraints.integer_interval(0, 3), "IntegerInterval(lower_bound=0, upper_bound=3)",
     {"lower_bound": 0, "upper_bound": 3}),
    (lambda: constraints.nonnegative_integer, "IntegerGreaterThan(lower_bound=0)", {"lower_bound": 0}),
    (lambda: constraints.positive_integer, "IntegerGreaterThan(lower_bound=1)", {"lower_bound": 1}),
    (lambda: constraints.positive, "GreaterThan(lower_bound=0.0)", {"lower_bound": 0.0}),
    (lambda: constraints.nonnegative, "GreaterThanEq(lower_bound=0.0)", {"lower_bound": 0.0}),
])
def test_bounded_constraints_repr_and_bounds(make, text, attrs):
    c = make()
    assert repr(c) == text
    for name, value in attrs.items():
        assert getattr(c, name) == value
    assert hasattr(c, "lower_bound") == ("lower_bound" in attrs)
    assert hasattr(c, "upper_bound") == ("upper_bound" in attrs)


def test_bounded_constraint_checks():
    v = t([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0])
    assert constraints.greater_than(0.5).check(v).tolist() == [False, False, False, True, True, True]
    assert constraints.greater_than_eq(0.5).check(v).tolist() == [False, False, True, True, True, True]
    assert constraints.less_than(1.0).check(v).tolist() == [True, True, True, False, False, False]
    assert constraints.interval(0.0, 2.0).check(v).tolist() == [False, True, True, True, True, False]
    assert constraints.half_open_interval(0.0, 2.0).check(v).tolist() == [False, True, True, True, False, False]
    assert constraints.integer_interval(0, 2).check(v).tolist() == [False, True, False, True, True, False]
    assert constraints.positive_integer.check(v).tolist() == [False, False, False, True, True, True]
    # Bounds may be tensors (Uniform's support): checked elementwise.
    lows = t([0.0, 1.0, 2.0, 2.5, 1.5, 4.0])
    assert constraints.interval(lows, 3.0).check(v).tolist() == [False, False, False, False, True, False]


PARAMETER_FREE = [T.ExpTransform, T.SigmoidTransform, T.SoftplusTransform, T.TanhTransform, T.AbsTransform,
                  T.SoftmaxTransform, T.StickBreakingTransform, T.LowerCholeskyTransform,
                  T.PositiveDefiniteTransform, T.CorrCholeskyTransform]


@pytest.mark.parametrize("cls", PARAMETER_FREE, ids=lambda c: c.__name__)
def test_parameter_free_transforms_compare_by_class(cls):
    class Sub(cls):
        pass

    assert cls() == cls() and not (cls() != cls())
    assert Sub() == cls() and cls() == Sub()  # PyTorch's isinstance(other, <the class>)
    for other in PARAMETER_FREE:
        if other is not cls:
            assert cls() != other() and not (cls() == other())
    assert cls() != T.AffineTransform(0.0, 1.0)
    assert cls().with_cache(1)._cache_size == 1 and cls().with_cache(1) == cls()


def test_registries_recurse_into_composite_constraints():
    # Each registry maps the parts of a composite constraint with itself: simplex -> stick-breaking
    # for biject_to, softmax for transform_to.
    ind = constraints.independent(constraints.simplex, 1)
    assert isinstance(D.biject_to(ind).base_transform, T.StickBreakingTransform)
    assert isinstance(D.transform_to(ind).base_transform, T.SoftmaxTransform)
    assert D.biject_to(ind).reinterpreted_batch_ndims == 1
    cat = constraints.cat([constraints.simplex, constraints.real], 0, [3, 1])
    assert isinstance(D.biject_to(cat).transforms[0], T.StickBreakingTransform)
    assert D.biject_to(cat).transforms[1] == T.identity_transform
    assert isinstance(D.transform_to(cat).transforms[0], T.SoftmaxTransform)
    assert D.biject_to(cat).lengths == [3, 1] and D.biject_to(cat).dim == 0
    stack = constraints.stack([constraints.simplex, constraints.positive], 1)
    assert isinstance(D.biject_to(stack).transforms[0], T.StickBreakingTransform)
    assert isinstance(D.transform_to(stack).transforms[0], T.SoftmaxTransform)
    assert D.transform_to(stack).dim == 1
    # The constraints PyTorch registers alike in both registries give equal transforms.
    for c in (constraints.real, constraints.lower_cholesky, constraints.positive_definite,
              constraints.positive_semidefinite, constraints.corr_cholesky, constraints.unit_interval):
        assert type(D.biject_to(c)) is type(D.transform_to(c))


def test_cache_serves_both_directions():
    tr = T.ExpTransform(cache_size=1)
    y = t([1.0, 2.0])
    x = tr.inv(y)
    close(x, np.log([1.0, 2.0]), rtol=1e-15)
    assert tr(x) is y  # cached by the inverse call
    x2 = t([0.5])
    y2 = tr(x2)
    assert tr.inv(y2) is x2 and tr(x2) is y2
    other = t([0.5])  # equal values, another tensor: computed again
    assert tr(other) is not y2
    close(tr(other), [np.exp(0.5)], rtol=1e-15)
    assert T.ExpTransform().inv(y) is not x  # no cache without cache_size
