"""ember.optim.swa_utils against NumPy references: the equal-weight and EMA averages, use_buffers,
update_bn's cumulative statistics, and SWALR's cosine/linear anneal (PyTorch 2.13's schedule)."""
import math
import warnings

import numpy as np
import pytest

import ember
from ember import nn
from ember.optim.swa_utils import (SWALR, AveragedModel, get_ema_avg_fn, get_ema_multi_avg_fn, get_swa_avg_fn,
                                   update_bn)


def _net():
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))


def _snapshots(model, n, with_buffers=False):
    """Perturbs the model n times (as training would), returning its parameters (and buffers) each time."""
    snaps = []
    for _ in range(n):
        with ember.no_grad():
            for p in model.parameters():
                p.add_(ember.randn(p.shape))
            model.train()
            model(ember.randn(8, 3))  # moves BatchNorm's running statistics
        tensors = list(model.parameters()) + (list(model.buffers()) if with_buffers else [])
        snaps.append([t.detach().numpy().copy() for t in tensors])
    return snaps


def _run(averaged, model, n, with_buffers=False):
    snaps = []
    for _ in range(n):
        snaps += _snapshots(model, 1, with_buffers)
        averaged.update_parameters(model)
    return snaps


def test_default_average_is_the_equal_weight_mean():
    ember.manual_seed(0)
    model = _net()
    swa = AveragedModel(model)
    snaps = _run(swa, model, 5)
    assert int(swa.n_averaged) == 5 and swa.n_averaged.dtype == ember.int64
    for i, p in enumerate(swa.module.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), np.mean([s[i] for s in snaps], axis=0), rtol=1e-5, atol=1e-6)
    # Buffers are copied, not averaged, without use_buffers.
    for b_swa, b in zip(swa.module.buffers(), model.buffers()):
        np.testing.assert_array_equal(b_swa.numpy(), b.numpy())


@pytest.mark.parametrize("kind", ["multi", "single"])
def test_ema_matches_numpy_recursion(kind):
    ember.manual_seed(1)
    model = _net()
    decay = 0.9
    fn = {"multi_avg_fn": get_ema_multi_avg_fn(decay)} if kind == "multi" else {"avg_fn": get_ema_avg_fn(decay)}
    ema = AveragedModel(model, **fn)
    snaps = _run(ema, model, 6)
    for i, p in enumerate(ema.module.parameters()):
        ref = snaps[0][i]
        for s in snaps[1:]:
            ref = decay * ref + (1 - decay) * s[i]
        np.testing.assert_allclose(p.detach().numpy(), ref, rtol=1e-5, atol=1e-6)


def test_use_buffers_averages_buffers_too():
    ember.manual_seed(2)
    model = _net()
    swa = AveragedModel(model, use_buffers=True)
    snaps = _run(swa, model, 4, with_buffers=True)
    tensors = list(swa.module.parameters()) + list(swa.module.buffers())
    assert len(tensors) == len(snaps[0])
    for i, t in enumerate(tensors):
        col = [s[i] for s in snaps]
        if np.issubdtype(col[0].dtype, np.integer):  # num_batches_tracked: the integer running mean
            ref = col[0]
            for k, v in enumerate(col[1:], start=1):
                ref = (ref + np.trunc((v - ref) / (k + 1))).astype(ref.dtype)
            np.testing.assert_array_equal(t.numpy(), ref)
        else:
            np.testing.assert_allclose(t.detach().numpy(), np.mean(col, axis=0), rtol=1e-5, atol=1e-6)


def test_custom_avg_fn_gets_n_averaged_and_forward_runs_the_copy():
    model = nn.Linear(2, 1)
    seen = []

    def avg_fn(avg, cur, n):
        seen.append(int(n))
        return avg + cur

    swa = AveragedModel(model, avg_fn=avg_fn)
    w0 = model.weight.detach().numpy().copy()
    for _ in range(3):
        swa.update_parameters(model)
    assert seen == [1, 1, 2, 2]  # weight and bias, at n_averaged 1 then 2
    np.testing.assert_allclose(swa.module.weight.detach().numpy(), 3 * w0)
    x = ember.ones(1, 2)
    np.testing.assert_allclose(swa(x).detach().numpy(), swa.module(x).detach().numpy())


def test_swa_avg_fn_formula_and_argument_errors():
    np.testing.assert_allclose(get_swa_avg_fn()(ember.tensor([1.0]), ember.tensor([4.0]), 2).numpy(), [2.0])
    with pytest.raises(ValueError, match=r"Invalid decay value 1.5 provided. Please provide a value in \[0,1\] range."):
        get_ema_multi_avg_fn(1.5)
    with pytest.raises(ValueError, match="Invalid decay value -0.1"):
        get_ema_avg_fn(-0.1)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        AveragedModel(nn.Linear(1, 1), avg_fn=get_swa_avg_fn(), multi_avg_fn=get_ema_multi_avg_fn())


def test_update_bn_recomputes_cumulative_statistics():
    ember.manual_seed(3)
    model = nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5, momentum=0.3), nn.ReLU())
    model.eval()
    data = [ember.randn(7, 3) * 2 + 1 for _ in range(4)]
    loader = [(x, ember.zeros(7)) for x in data]  # (input, target) batches: update_bn takes the first item
    update_bn(loader, model)
    assert not model.training  # the mode is restored
    bn = model[1]
    assert bn.momentum == 0.3
    w, b = model[0].weight.detach().numpy(), model[0].bias.detach().numpy()
    feats = [x.numpy() @ w.T + b for x in data]
    # momentum=None: the running statistics are the average of the per-batch statistics.
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean([f.mean(0) for f in feats], 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), np.mean([f.var(0, ddof=1) for f in feats], 0), rtol=1e-5)
    assert int(bn.num_batches_tracked) == 4


def test_update_bn_without_batchnorm_does_nothing():
    model = nn.Linear(2, 2)
    update_bn([ember.ones(1, 2)], model)  # no BatchNorm: not even a forward pass is needed
    assert model.training


def _closed_form(lr0, swa_lr, anneal_epochs, step, strategy):
    t = 1.0 if anneal_epochs == 0 else min(1.0, step / anneal_epochs)
    alpha = (1 - math.cos(math.pi * t)) / 2 if strategy == "cos" else t
    return swa_lr * alpha + lr0 * (1 - alpha)


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 4])
def test_swalr_anneals_to_swa_lr(strategy, anneal_epochs):
    p = nn.Parameter(ember.zeros(1))
    opt = ember.optim.SGD([p], lr=0.5)
    sched = SWALR(opt, swa_lr=0.05, anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    got = [sched.get_last_lr()[0]]
    for _ in range(7):
        opt.step()
        sched.step()
        got.append(opt.param_groups[0]["lr"])
    ref = [_closed_form(0.5, 0.05, anneal_epochs, s, strategy) for s in range(8)]
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_swalr_per_group_lrs_state_dict_and_errors():
    a, b = nn.Parameter(ember.zeros(1)), nn.Parameter(ember.zeros(1))
    opt = ember.optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.2)
    sched = SWALR(opt, swa_lr=[0.1, 0.3], anneal_epochs=2, anneal_strategy="linear")
    assert [g["swa_lr"] for g in opt.param_groups] == [0.1, 0.3]
    opt.step()
    sched.step()
    np.testing.assert_allclose(sched.get_last_lr(), [0.15, 0.65])
    state = sched.state_dict()
    assert "anneal_func" not in state and state["_anneal_strategy"] == "linear"
    other = SWALR(ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.2), swa_lr=0.1, anneal_strategy="cos")
    other.load_state_dict(state)
    assert other.anneal_func(0.25) == 0.25  # the linear anneal, restored
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        SWALR(opt, swa_lr=0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
        SWALR(opt, swa_lr=0.1, anneal_epochs=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SWALR(opt, swa_lr=0.1)  # constructing steps once, quietly
