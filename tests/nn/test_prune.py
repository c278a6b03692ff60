"""ember.nn.utils.prune against NumPy: which entries/channels each method prunes, the weight_orig
parameter / weight_mask buffer / forward pre-hook reparametrization, iterative pruning, global
pruning, remove, and PyTorch's errors."""
import numpy as np
import pytest

import ember
from ember import nn
from ember.nn.utils import prune


def _linear(seed=0, shape=(4, 5)):
    ember.manual_seed(seed)
    return nn.Linear(shape[1], shape[0])


def _smallest_abs_mask(w, k):
    mask = np.ones(w.size, dtype=np.float32)
    mask[np.argsort(np.abs(w).reshape(-1), kind="stable")[:k]] = 0
    return mask.reshape(w.shape)


def test_l1_unstructured_reparametrizes_and_prunes_smallest_magnitudes():
    m = _linear()
    w = m.weight.detach().numpy().copy()
    out = prune.l1_unstructured(m, "weight", amount=0.3)
    assert out is m
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_mask"]
    assert set(m.state_dict()) == {"bias", "weight_orig", "weight_mask"}
    assert "weight" not in dict(m.named_parameters())
    ref_mask = _smallest_abs_mask(w, 6)  # round(0.3 * 20)
    np.testing.assert_array_equal(m.weight_mask.numpy(), ref_mask)
    np.testing.assert_array_equal(m.weight_orig.detach().numpy(), w)
    np.testing.assert_array_equal(m.weight.detach().numpy(), w * ref_mask)
    hooks = list(m._forward_pre_hooks.values())
    assert len(hooks) == 1 and isinstance(hooks[0], prune.L1Unstructured) and hooks[0]._tensor_name == "weight"
    assert prune.is_pruned(m) and prune.is_pruned(nn.Sequential(m))


def test_forward_pre_hook_recomputes_weight_and_gradient_is_masked():
    m = _linear(1)
    prune.l1_unstructured(m, "weight", amount=8)
    with ember.no_grad():
        m.weight_orig.add_(1.0)  # an optimizer step on the original parameter
    x = ember.randn(3, 5)
    y = m(x)
    w, mask, b = m.weight_orig.detach().numpy(), m.weight_mask.numpy(), m.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), x.numpy() @ (w * mask).T + b, rtol=1e-5, atol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(m.weight_orig.grad.numpy(), mask * x.numpy().sum(0)[None, :], rtol=1e-5)


def test_importance_scores_choose_what_is_pruned():
    m = _linear(2)
    scores = ember.arange(20.0).reshape(4, 5)
    prune.l1_unstructured(m, "weight", amount=5, importance_scores=scores)
    ref = np.ones((4, 5), dtype=np.float32)
    ref.reshape(-1)[:5] = 0
    np.testing.assert_array_equal(m.weight_mask.numpy(), ref)
    with pytest.raises(AssertionError, match=r"importance_scores should have the same shape as parameter bias"):
        prune.l1_unstructured(m, "bias", amount=1, importance_scores=ember.ones(3))


def test_random_unstructured_prunes_exactly_amount_and_follows_the_seed():
    masks = []
    for _ in range(2):
        m = _linear(3, (6, 7))
        ember.manual_seed(11)
        prune.random_unstructured(m, "weight", amount=0.5)
        masks.append(m.weight_mask.numpy())
    assert (masks[0] == 0).sum() == 21  # round(0.5 * 42)
    np.testing.assert_array_equal(masks[0], masks[1])


@pytest.mark.parametrize("n,dim", [(2, 0), (1, 1), (float("inf"), 0), (-float("inf"), 1)])
def test_ln_structured_prunes_channels_of_smallest_norm(n, dim):
    m = _linear(4, (6, 5))
    w = m.weight.detach().numpy().copy()
    prune.ln_structured(m, "weight", amount=2, n=n, dim=dim)
    axes = 1 - dim
    norms = np.linalg.norm(w, ord=n, axis=axes) if np.isfinite(n) and n != 1 else (
        np.abs(w).sum(axes) if n == 1 else (np.abs(w).max(axes) if n > 0 else np.abs(w).min(axes)))
    pruned = set(np.argsort(norms, kind="stable")[:2].tolist())
    ref = np.ones_like(w)
    for c in pruned:
        if dim == 0:
            ref[c, :] = 0
        else:
            ref[:, c] = 0
    np.testing.assert_array_equal(m.weight_mask.numpy(), ref)


def test_random_structured_prunes_whole_channels():
    m = _linear(5, (6, 5))
    prune.random_structured(m, "weight", amount=0.5, dim=0)
    mask = m.weight_mask.numpy()
    rows = mask.sum(1)
    assert sorted(rows.tolist()) == [0, 0, 0, 5, 5, 5]  # 3 whole rows (round(0.5 * 6)) are pruned


def test_iterative_pruning_builds_a_container_that_prunes_only_what_is_left():
    m = _linear(6, (5, 4))
    w = m.weight.detach().numpy().copy()
    prune.l1_unstructured(m, "weight", amount=0.25)   # 5 of 20
    prune.l1_unstructured(m, "weight", amount=0.4)    # round(0.4 * 15) = 6 of the 15 left
    hooks = [h for h in m._forward_pre_hooks.values()]
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer) and len(hooks[0]) == 2
    np.testing.assert_array_equal(m.weight_mask.numpy(), _smallest_abs_mask(w, 11))
    # A structured pruning after that removes the row of smallest L2 norm among the rows with entries left.
    masked = w * m.weight_mask.numpy()
    alive = m.weight_mask.numpy().sum(1) != 0
    prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
    norms = np.where(alive, np.linalg.norm(masked, axis=1), np.inf)
    row = int(np.argmin(norms))
    ref = _smallest_abs_mask(w, 11)
    ref[row, :] = 0
    np.testing.assert_array_equal(m.weight_mask.numpy(), ref)


def test_global_unstructured_prunes_smallest_across_modules():
    a, b = _linear(7, (3, 4)), _linear(8, (2, 5))
    wa, wb = a.weight.detach().numpy().copy(), b.weight.detach().numpy().copy()
    prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=0.5)
    flat = np.concatenate([wa.reshape(-1), wb.reshape(-1)])
    ref = _smallest_abs_mask(flat, 11)  # round(0.5 * 22)
    np.testing.assert_array_equal(a.weight_mask.numpy().reshape(-1), ref[:12])
    np.testing.assert_array_equal(b.weight_mask.numpy().reshape(-1), ref[12:])
    assert isinstance(next(iter(a._forward_pre_hooks.values())), prune.CustomFromMask)
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE supported for the `pruning_method`'):
        prune.global_unstructured([(a, "bias")], pruning_method=prune.RandomStructured, amount=1)
    with pytest.raises(TypeError, match=r"global_unstructured\(\): parameters is not an Iterable"):
        prune.global_unstructured(3, pruning_method=prune.L1Unstructured, amount=1)


def test_custom_from_mask_identity_and_remove():
    m = _linear(9, (2, 3))
    w = m.weight.detach().numpy().copy()
    mask = ember.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    prune.custom_from_mask(m, "weight", mask)
    np.testing.assert_array_equal(m.weight.detach().numpy(), w * mask.numpy())
    prune.remove(m, "weight")
    assert not prune.is_pruned(m)
    assert isinstance(m.weight, nn.Parameter)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]
    assert list(m.named_buffers()) == [] and not m._forward_pre_hooks
    np.testing.assert_array_equal(m.weight.detach().numpy(), w * mask.numpy())
    prune.identity(m, "bias")
    np.testing.assert_array_equal(m.bias_mask.numpy(), np.ones(2, dtype=np.float32))
    with pytest.raises(ValueError, match=r"Parameter 'weight' of module .* has to be pruned before pruning can be "
                                         r"removed"):
        prune.remove(m, "weight")


def test_method_prune_does_not_touch_the_tensor():
    t = ember.tensor([[3.0, -1.0], [0.5, -4.0]])
    got = prune.L1Unstructured(amount=2).prune(t)
    np.testing.assert_array_equal(got.numpy(), [[3.0, 0.0], [0.0, -4.0]])
    np.testing.assert_array_equal(t.numpy(), [[3.0, -1.0], [0.5, -4.0]])


def test_amount_and_shape_errors_leave_the_module_unpruned():
    m = _linear()
    with pytest.raises(TypeError, match="Invalid type for amount: 0.5x. Must be int or float."):
        prune.l1_unstructured(m, "weight", amount="0.5x")
    with pytest.raises(ValueError, match=r"amount=1.5 should either be a float in the range \[0, 1\] or a "
                                         r"non-negative integer"):
        prune.random_unstructured(m, "weight", amount=1.5)
    with pytest.raises(ValueError, match="amount=-1 should either be"):
        prune.random_unstructured(m, "weight", amount=-1)
    with pytest.raises(ValueError, match="amount=21 should be smaller than the number of parameters to prune=20"):
        prune.l1_unstructured(m, "weight", amount=21)
    assert not prune.is_pruned(m) and {n for n, _ in m.named_parameters()} == {"weight", "bias"}
    with pytest.raises(ValueError, match=r"Structured pruning can only be applied to multidimensional tensors. "
                                         r"Found tensor of shape .*\[4\].* with 1 dims"):
        prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
    with pytest.raises(IndexError, match="Invalid index 2 for tensor of size"):
        prune.random_structured(m, "weight", amount=1, dim=2)
    assert not prune.is_pruned(m) and "weight" in dict(m.named_parameters())
