"""The error paths of ember.distributions that no other test reaches: each bad call raises PyTorch's
exception type with its message (torch.distributions 2.13's, written out with ember's names), or a
clearer one where PyTorch's is an accident (said at the case)."""
import re

import pytest

import ember
import ember.distributions as D
from ember.distributions import constraints as C
from ember.distributions import transforms as T
from ember.distributions import utils as U

from ._helpers import t


class _CustomInit(T.Transform):
    def __init__(self, a):
        super().__init__()


EYE2 = [[1.0, 0.0], [0.0, 1.0]]

CASES = {
    # transforms
    "event_dim": (lambda: T.CorrCholeskyTransform().event_dim, ValueError,
                  "Please use either .domain.event_dim or .codomain.event_dim"),
    "with_cache": (lambda: _CustomInit(1).with_cache(1), NotImplementedError, ".with_cache is not implemented"),
    "cat_tseq": (lambda: T.CatTransform([1]), AssertionError, "All elements of tseq must be Transform instances"),
    "cat_lengths": (lambda: T.CatTransform([T.ExpTransform()], 0, [1, 2]), AssertionError,
                    "lengths (2) must match transforms (1)"),
    "cat_dim": (lambda: T.CatTransform([T.ExpTransform()], 3, [2])(t([1.0, 2.0])), AssertionError,
                "dim 3 out of range for tensor with 1 dimensions"),
    "cat_size": (lambda: T.CatTransform([T.ExpTransform()], 0, [2])(t([1.0, 2.0, 3.0])), AssertionError,
                 "x.size(0) = 3 must equal length 2"),
    "cat_inverse_size": (lambda: T.CatTransform([T.ExpTransform()], 0, [2]).inv(t([1.0, 2.0, 3.0])), AssertionError,
                         "y.size(0) = 3 must equal length 2"),
    "stack_tseq": (lambda: T.StackTransform([1]), AssertionError, "All elements of tseq must be Transform instances"),
    "stack_dim": (lambda: T.StackTransform([T.ExpTransform()], 3)(t([1.0])), AssertionError,
                  "dim 3 out of range for tensor with 1 dimensions"),
    "stack_size": (lambda: T.StackTransform([T.ExpTransform()], 0)(t([1.0, 2.0])), AssertionError,
                   "x.size(0) = 2 must equal len(transforms) 1"),
    "corr_not_square": (lambda: T.CorrCholeskyTransform().inverse_shape((3, 4)), ValueError, "Input is not square"),
    "corr_too_few": (lambda: T.CorrCholeskyTransform().inverse_shape((3,)), ValueError, "Too few dimensions on input"),
    "softmax_too_few": (lambda: T.SoftmaxTransform().forward_shape(()), ValueError, "Too few dimensions on input"),
    "independent_too_few": (lambda: T.IndependentTransform(T.StickBreakingTransform(), 1)(t([1.0, 2.0])), ValueError,
                            "Too few dimensions on input"),
    "reshape_mismatch": (lambda: T.ReshapeTransform((2, 3), (3, 2)).forward_shape((4, 3, 2)), ValueError,
                         "Shape mismatch: expected (3, 2) but got ember.Size([2, 3])"),
    "reshape_too_few": (lambda: T.ReshapeTransform((2, 3), (3, 2)).forward_shape((3,)), ValueError,
                        "Too few dimensions on input"),
    # constraints
    "independent_base": (lambda: C.independent(1, 1), AssertionError, "base_constraint must be a Constraint"),
    "independent_int": (lambda: C.independent(C.real, 1.5), AssertionError, "reinterpreted_batch_ndims must be an int"),
    "independent_negative": (lambda: C.independent(C.real, -1), AssertionError,
                             "reinterpreted_batch_ndims must be >= 0, got -1"),
    "independent_check": (lambda: C.independent(C.real, 2).check(t([1.0])), ValueError,
                          "Expected value.dim() >= 2 but got 1"),
    "mixture_base": (lambda: C.MixtureSameFamilyConstraint(1), AssertionError, "base_constraint must be a Constraint"),
    # PyTorch raises an IndexError from inside its check here; the dims are named instead.
    "mixture_check": (lambda: C.MixtureSameFamilyConstraint(C.simplex).check(t(1.0)), ValueError,
                      "Expected value.dim() >= 1 but got 0"),
    "cat_cseq": (lambda: C.cat([1]), AssertionError, "All elements of cseq must be Constraint instances"),
    "cat_clengths": (lambda: C.cat([C.real], 0, [1, 2]), AssertionError, "lengths (2) must match cseq (1)"),
    "cat_cdim": (lambda: C.cat([C.real], 2, [1]).check(t([1.0])), AssertionError,
                 "dim 2 out of range for value with 1 dimensions"),
    "stack_cseq": (lambda: C.stack([1]), AssertionError, "All elements of cseq must be Constraint instances"),
    "stack_cdim": (lambda: C.stack([C.real], 2).check(t([1.0])), AssertionError,
                   "dim 2 out of range for value with 1 dimensions"),
    # families
    "categorical_logits_0d": (lambda: D.Categorical(logits=t(0.5)), ValueError,
                              "`logits` parameter must be at least one-dimensional."),
    "continuous_bernoulli_probs": (lambda: D.ContinuousBernoulli(t([1.2]), validate_args=True), ValueError,
                                   "The parameter probs has invalid values"),
    "dirichlet_0d": (lambda: D.Dirichlet(t(1.0)), ValueError,
                     "`concentration` parameter must be at least one-dimensional."),
    "mode": (lambda: D.TransformedDistribution(D.Normal(t(0.0), t(1.0)), [T.ExpTransform()]).mode,
             NotImplementedError,
             "<class 'ember.distributions.transformed_distribution.TransformedDistribution'> does not implement mode"),
    "independent_enumerate": (lambda: D.Independent(D.Bernoulli(t([[0.5, 0.5]])), 1).enumerate_support(),
                              NotImplementedError, "Enumeration over cartesian product is not implemented"),
    "lowrank_batch": (lambda: D.LowRankMultivariateNormal(t([[0.0, 0.0], [1.0, 1.0]]), t([[[1.0], [1.0]]] * 3),
                                                          t([1.0, 1.0])), ValueError,
                      "Incompatible batch shapes: loc ember.Size([2, 2]), cov_factor ember.Size([3, 2, 1]), "
                      "cov_diag ember.Size([2])"),
    "lowrank_factor": (lambda: D.LowRankMultivariateNormal(t([0.0, 0.0]), t([1.0, 1.0]), t([1.0, 1.0])), ValueError,
                       "cov_factor must be at least two-dimensional, with optional leading batch dimensions"),
    "mixture_component": (lambda: D.MixtureSameFamily(D.Categorical(t([0.5, 0.5])), 1), ValueError,
                          "The Component distribution needs to be an instance of torch.distributions.Distribution"),
    "mixture_batch": (lambda: D.MixtureSameFamily(D.Categorical(t([[0.5, 0.5]] * 3)),
                                                  D.Normal(t([[0.0, 1.0]] * 2), t(1.0))), ValueError,
                      "`mixture_distribution.batch_shape` (ember.Size([3])) is not compatible with "
                      "`component_distribution.batch_shape`(ember.Size([2]))"),
    "mvn_covariance_1d": (lambda: D.MultivariateNormal(t([0.0]), covariance_matrix=t([1.0])), ValueError,
                          "covariance_matrix must be at least two-dimensional, with optional leading batch dimensions"),
    "mvn_precision_1d": (lambda: D.MultivariateNormal(t([0.0]), precision_matrix=t([1.0])), ValueError,
                         "precision_matrix must be at least two-dimensional, with optional leading batch dimensions"),
    "transformed_event": (lambda: D.TransformedDistribution(D.Normal(t(0.0), t(1.0)), T.StickBreakingTransform()),
                          ValueError, "base_distribution needs to have shape with size at least 1, but got "
                          "ember.Size([])."),
    "wishart_tril_1d": (lambda: D.Wishart(t(3.0), scale_tril=t([1.0])), ValueError,
                        "scale_tril must be at least two-dimensional, with optional leading batch dimensions"),
    "wishart_df": (lambda: D.Wishart(t(0.5), t(EYE2)), ValueError,
                   "Value of df=0.5 expected to be greater than ndim - 1 = 1."),
    "binomial_enumerate": (lambda: D.Binomial(t([2.0, 3.0]), t([0.5, 0.5])).enumerate_support(), NotImplementedError,
                           "Inhomogeneous total count not supported by `enumerate_support`."),
    # PyTorch's message for two MVNs has stray spaces from a line continuation; ember's reads plainly.
    "kl_event_shapes": (lambda: D.kl_divergence(D.MultivariateNormal(t([0.0]), t([[1.0]])),
                                                D.LowRankMultivariateNormal(t([0.0, 0.0]), t([[1.0], [1.0]]),
                                                                            t([1.0, 1.0]))), ValueError,
                        "KL-divergence between two (Low Rank) Multivariate Normals with different event shapes "
                        "cannot be computed"),
    # utils
    "broadcast_sizes": (lambda: U.broadcast_all(t([1.0, 2.0]), t([1.0, 2.0, 3.0])), RuntimeError,
                        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    "broadcast_three": (lambda: U.broadcast_all(t([[1.0]] * 2), t([1.0] * 3), t([1.0] * 4)), RuntimeError,
                        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    "broadcast_type": (lambda: U.broadcast_all("a"), ValueError,
                       "Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                       "__torch_function__."),
    "tril_diag": (lambda: U.tril_matrix_to_vec(t(EYE2), diag=5), ValueError, "diag (5) provided is outside [-2, 1]."),
    "vec_to_tril": (lambda: U.vec_to_tril_matrix(t([1.0, 2.0])), ValueError,
                    "The size of last dimension is 2 which cannot be expressed as the lower triangular part of a "
                    "square D x D matrix."),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_path(name):
    call, kind, message = CASES[name]
    with pytest.raises(kind, match=re.escape(message)):
        call()


def test_register_kl_checks_both_types():
    # PyTorch checks type_q with a condition that never holds for a class (its `not ... and ...`);
    # ember refuses a q that is not a Distribution subclass as it does a p.
    with pytest.raises(TypeError, match=re.escape("Expected type_q to be a Distribution subclass but got "
                                                  "<class 'int'>")):
        D.register_kl(D.Normal, int)


def test_the_valid_neighbours_of_the_error_paths_work():
    # The calls just inside each checked limit.
    assert T.CatTransform([T.ExpTransform()], -1, [2])(t([0.0, 0.0])).tolist() == [1.0, 1.0]
    assert T.StackTransform([T.ExpTransform()], 0)(t([0.0])).tolist() == [1.0]
    assert C.independent(C.real, 0).check(t(1.0)).tolist() is True
    assert tuple(U.broadcast_all(t([[1.0]] * 2), t([1.0] * 3))[0].shape) == (2, 3)
    assert tuple(D.Wishart(t(2.5), t(EYE2)).batch_shape) == ()
    assert tuple(U.vec_to_tril_matrix(t([1.0, 2.0, 3.0])).shape) == (2, 2)
    assert ember.Size(D.Dirichlet(t([1.0])).event_shape) == ember.Size([1])
