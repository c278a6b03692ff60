"""ember.utils.checkpoint: gradients equal to the un-checkpointed model's and to a hand-computed one,
dropout's random numbers replayed in the recomputation, and PyTorch 2.13's warnings and errors."""
import warnings

import numpy as np
import pytest

import ember
from ember import nn
from ember.utils.checkpoint import checkpoint, checkpoint_sequential

VARIANTS = [True, False]


def _model():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.5), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))


def _grads(model, x, run):
    for p in model.parameters():
        p.grad = None
    x.grad = None
    ember.manual_seed(123)
    loss = run(x).pow(2).sum()
    loss.backward()
    return float(loss), [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_gradients_equal_uncheckpointed_model_with_dropout(use_reentrant):
    model = _model()
    x = ember.randn(6, 4, requires_grad=True)
    ref_loss, ref = _grads(model, x, model)
    loss, got = _grads(model, x, lambda t: checkpoint(model, t, use_reentrant=use_reentrant))
    assert loss == ref_loss
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)  # same ops on the same numbers, same dropout mask


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_gradient_against_hand_computed(use_reentrant):
    w = ember.tensor([0.3, -1.2, 2.0], requires_grad=True)
    x = ember.tensor([1.5, 0.5, -0.7], requires_grad=True)

    def f(t):
        return (w * t).sin()

    checkpoint(f, x, use_reentrant=use_reentrant).sum().backward()
    wn, xn = np.array([0.3, -1.2, 2.0]), np.array([1.5, 0.5, -0.7])
    np.testing.assert_allclose(w.grad.numpy(), xn * np.cos(wn * xn), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), wn * np.cos(wn * xn), rtol=1e-6)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_recomputation_replays_dropout_and_leaves_global_rng_alone(use_reentrant):
    x = ember.ones(1000, requires_grad=True)
    seen = []

    def f(t):
        out = nn.functional.dropout(t, 0.5, training=True)
        seen.append((out != 0).numpy())
        return out * 3.0

    ember.manual_seed(7)
    y = checkpoint(f, x, use_reentrant=use_reentrant)
    after_forward = ember.get_rng_state().numpy().copy()
    y.sum().backward()
    np.testing.assert_array_equal(ember.get_rng_state().numpy(), after_forward)
    assert len(seen) == 2
    np.testing.assert_array_equal(seen[0], seen[1])
    np.testing.assert_array_equal(x.grad.numpy(), np.where(seen[0], 6.0, 0.0))  # 3 / (1 - p) where kept


def test_without_preserve_rng_state_recomputation_draws_new_numbers():
    x = ember.ones(1000, requires_grad=True)
    masks = []

    def f(t):
        out = nn.functional.dropout(t, 0.5, training=True)
        masks.append((out != 0).numpy())
        return out

    checkpoint(f, x, use_reentrant=False, preserve_rng_state=False).sum().backward()
    assert (masks[0] != masks[1]).any()
    np.testing.assert_array_equal(x.grad.numpy(), np.where(masks[1], 2.0, 0.0))


@pytest.mark.parametrize("use_reentrant", VARIANTS)
@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential_matches_plain_run(use_reentrant, segments):
    model = _model()
    x = ember.randn(5, 4, requires_grad=True)
    ref_loss, ref = _grads(model, x, model)
    loss, got = _grads(model, x, lambda t: checkpoint_sequential(model, segments, t, use_reentrant=use_reentrant))
    assert loss == ref_loss
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_non_reentrant_supports_autograd_grad_and_kwargs():
    w = ember.tensor([2.0, 3.0], requires_grad=True)
    x = ember.tensor([1.0, -1.0], requires_grad=True)

    def f(t, scale=1.0):
        return (w * t * scale).pow(2)

    y = checkpoint(f, x, scale=2.0, use_reentrant=False).sum()
    gx, gw = ember.autograd.grad(y, [x, w])
    # y = sum((2 w x)^2) -> dy/dx = 8 w^2 x, dy/dw = 8 x^2 w
    np.testing.assert_allclose(gx.numpy(), [32.0, -72.0])
    np.testing.assert_allclose(gw.numpy(), [16.0, 24.0])
    assert w.grad is None and x.grad is None  # grad() accumulates nothing


def test_reentrant_refuses_autograd_grad_and_keyword_arguments():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda t: t.exp(), x, use_reentrant=True).sum()
    with pytest.raises(RuntimeError, match=r"When use_reentrant=True, ember.utils.checkpoint is incompatible with "
                                           r"\.grad\(\) or passing an `inputs` parameter to \.backward\(\)"):
        ember.autograd.grad(y, [x])
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: scale$"):
        checkpoint(lambda t, scale: t * scale, x, scale=2.0, use_reentrant=True)
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported when use_reentrant=False"):
        checkpoint(lambda t: t, x, use_reentrant=True, debug=True)


def test_missing_use_reentrant_warns_and_defaults_to_reentrant():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        y = checkpoint(lambda t: t * t, x)
        checkpoint_sequential([nn.Tanh(), nn.Tanh()], 2, x)
    texts = [str(w.message) for w in rec]
    assert any(t.startswith("ember.utils.checkpoint: the use_reentrant parameter should be passed explicitly")
               for t in texts)
    assert any(t.startswith("ember.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter") for t in texts)
    y.sum().backward()
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        z = checkpoint(lambda t: t * t, x).sum()
    with pytest.raises(RuntimeError, match="When use_reentrant=True"):  # the default is the reentrant variant
        ember.autograd.grad(z, [x])


def test_reentrant_warns_when_no_input_requires_grad():
    lin = nn.Linear(2, 2)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be None"):
        out = checkpoint(lin, ember.ones(1, 2), use_reentrant=True)
    assert not out.requires_grad  # as in PyTorch: the parameters get no gradient through this variant


def test_non_reentrant_parameters_get_gradients_without_input_grad():
    lin = nn.Linear(2, 1)
    out = checkpoint(lin, ember.ones(3, 2), use_reentrant=False)
    out.sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), [[3.0, 3.0]])
    np.testing.assert_allclose(lin.bias.grad.numpy(), [3.0])


def test_non_reentrant_names_a_hidden_tensor_it_cannot_reach():
    hidden = {"w": ember.tensor([1.0], requires_grad=True)}
    getter = hidden.get  # a builtin method: its tensors are out of sight

    def f(t):
        return t * getter("w")

    with pytest.raises(RuntimeError, match="pass that tensor as an argument"):
        checkpoint(f, ember.tensor([2.0], requires_grad=True), use_reentrant=False)


def test_no_grad_mode_just_runs_the_function():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    with ember.no_grad():
        y = checkpoint(lambda t: t * 2, x, use_reentrant=False)
    assert not y.requires_grad
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])
