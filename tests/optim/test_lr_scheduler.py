"""The LR schedulers against closed forms computed here with NumPy (or by hand, for
ReduceLROnPlateau), including chained and sequential use and their error messages."""
import math
import warnings

import numpy as np
import pytest

import ember
from ember import optim
from ember.optim import lr_scheduler as S

BASES = [0.1, 0.03]


def make_opt(lrs=BASES, cls=optim.SGD, **kw):
    groups = [{"params": [ember.tensor([1.0]).requires_grad_(True)], "lr": lr} for lr in lrs]
    if cls is optim.SGD:
        kw.setdefault("momentum", 0.9)
    return cls(groups, **kw)


def trace(opt, sched, n, key=None):
    """Per group, the value after construction and after each of n (optimizer, scheduler) steps."""
    def read():
        return [g[key] if key else lr for g, lr in zip(opt.param_groups, sched.get_last_lr())]
    out = [read()]
    for _ in range(n):
        opt.step()
        sched.step()
        out.append(read())
    return np.array(out).T  # one row per group


def check(sched_factory, closed_form, n=20, lrs=BASES, **opt_kw):
    opt = make_opt(lrs, **opt_kw)
    sched = sched_factory(opt)
    got = trace(opt, sched, n)
    e = np.arange(n + 1)
    for row, base in zip(got, lrs):
        np.testing.assert_allclose(row, closed_form(base, e), rtol=1e-12, atol=1e-15)
    # get_last_lr mirrors the groups
    assert sched.get_last_lr() == [g["lr"] for g in opt.param_groups]


def test_step_lr():
    check(lambda o: S.StepLR(o, step_size=3, gamma=0.5), lambda b, e: b * 0.5 ** (e // 3))


def test_multi_step_lr_with_repeated_milestone():
    ms = np.array([2, 5, 5, 8])
    check(lambda o: S.MultiStepLR(o, milestones=[2, 5, 5, 8], gamma=0.1),
          lambda b, e: b * 0.1 ** np.searchsorted(ms, e, side="right"))


def test_constant_lr():
    check(lambda o: S.ConstantLR(o, factor=0.25, total_iters=4), lambda b, e: b * np.where(e < 4, 0.25, 1.0))
    with pytest.raises(ValueError, match="Constant multiplicative factor expected to be between 0 and 1."):
        S.ConstantLR(make_opt(), factor=1.5)


def test_linear_lr():
    check(lambda o: S.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=5),
          lambda b, e: b * (0.2 + 0.7 * np.minimum(e, 5) / 5))
    with pytest.raises(ValueError, match="Starting multiplicative factor expected to be greater than 0"):
        S.LinearLR(make_opt(), start_factor=0)
    with pytest.raises(ValueError, match="Ending multiplicative factor expected to be between 0 and 1."):
        S.LinearLR(make_opt(), end_factor=2)


def test_exponential_lr():
    check(lambda o: S.ExponentialLR(o, gamma=0.8), lambda b, e: b * 0.8 ** e)


def test_polynomial_lr():
    check(lambda o: S.PolynomialLR(o, total_iters=6, power=2.0), lambda b, e: b * (1 - np.minimum(e, 6) / 6) ** 2)


def test_lambda_lr_one_function_per_group():
    fns = [lambda e: 1 / (1 + e), lambda e: 0.5 ** (e // 2)]
    opt = make_opt()
    got = trace(opt, S.LambdaLR(opt, lr_lambda=fns), 10)
    e = np.arange(11)
    np.testing.assert_allclose(got[0], BASES[0] / (1 + e), rtol=1e-12)
    np.testing.assert_allclose(got[1], BASES[1] * 0.5 ** (e // 2), rtol=1e-12)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        S.LambdaLR(make_opt(), lr_lambda=[fns[0]])


def test_multiplicative_lr():
    f = lambda e: 0.9 + 0.01 * e
    check(lambda o: S.MultiplicativeLR(o, lr_lambda=f),
          lambda b, e: b * np.array([np.prod([f(i) for i in range(1, k + 1)]) for k in e]))


def cosine(base, e, T, eta_min):
    return eta_min + (base - eta_min) * (1 + np.cos(np.pi * e / T)) / 2


def test_cosine_annealing_recursive_form_matches_closed_form():
    # past T_max too: the recursion goes back up, and through the 0/0 point at each minimum
    check(lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.001), lambda b, e: cosine(b, e, 5, 0.001), n=32)


def test_cosine_annealing_resumed_from_an_epoch():
    opt = make_opt()
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\] when "
                                       "resuming an optimizer"):
        S.CosineAnnealingLR(opt, T_max=10, last_epoch=3)
    for g, b in zip(opt.param_groups, BASES):
        g["initial_lr"] = b
    sched = S.CosineAnnealingLR(opt, T_max=10, eta_min=0.0, last_epoch=3)
    got = trace(opt, sched, 6)
    for row, b in zip(got, BASES):
        np.testing.assert_allclose(row, cosine(b, np.arange(4, 11), 10, 0.0), rtol=1e-12, atol=1e-15)


def _warm_restart_position(epoch, T_0, T_mult):
    """(T_cur, T_i) by walking the periods one by one."""
    start, T_i = 0.0, T_0
    while epoch >= start + T_i:
        start += T_i
        T_i *= T_mult
    return epoch - start, T_i


@pytest.mark.parametrize("T_mult", [1, 2, 3])
def test_cosine_warm_restarts_integer_epochs(T_mult):
    def closed(b, e):
        out = []
        for k in e:
            T_cur, T_i = _warm_restart_position(k, 3, T_mult)
            out.append(0.001 + (b - 0.001) * (1 + math.cos(math.pi * T_cur / T_i)) / 2)
        return np.array(out)
    check(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=T_mult, eta_min=0.001), closed, n=30)


@pytest.mark.parametrize("T_mult", [1, 2])
def test_cosine_warm_restarts_fractional_epochs(T_mult):
    opt = make_opt()
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=T_mult, eta_min=0.0)
    epochs = [0.5, 1.75, 2.9, 3.0, 3.2, 8.5, 9.0, 10.25, 20.9, 21.5, 40.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ep in epochs:
            sched.step(ep)
            T_cur, T_i = _warm_restart_position(ep, 3, T_mult)
            want = [b * (1 + math.cos(math.pi * T_cur / T_i)) / 2 for b in BASES]
            np.testing.assert_allclose(sched.get_last_lr(), want, rtol=1e-9, atol=1e-15)
            assert sched.last_epoch == math.floor(ep)
    with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
        S.CosineAnnealingWarmRestarts(make_opt(), T_0=0)
    with pytest.raises(ValueError, match="Expected integer T_mult >= 1, but got 0"):
        S.CosineAnnealingWarmRestarts(make_opt(), T_0=2, T_mult=0)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        sched.step(-1)


def _clr(it, base, top, up, down, scale):
    """Triangle wave: up in `up` iterations, down in `down`; amplitude scaled by scale(cycle, it)."""
    period = up + down
    cycle = it // period + 1
    frac = np.interp(it % period, [0, up, period], [0.0, 1.0, 0.0])
    return base + (top - base) * frac * np.array([scale(c, i) for c, i in zip(cycle, it)]), frac


@pytest.mark.parametrize("mode, scale", [
    ("triangular", lambda c, i: 1.0),
    ("triangular2", lambda c, i: 0.5 ** (c - 1)),
    ("exp_range", lambda c, i: 0.95 ** i),
])
def test_cyclic_lr_and_momentum(mode, scale):
    opt = make_opt()
    sched = S.CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=[0.1, 0.5], step_size_up=4, mode=mode, gamma=0.95,
                       base_momentum=0.8, max_momentum=0.9)
    n = 30
    lrs = trace(opt, sched, n)
    it = np.arange(n + 1)
    for row, base, top in zip(lrs, [0.01, 0.02], [0.1, 0.5]):
        want, _ = _clr(it, base, top, 4, 4, scale)
        np.testing.assert_allclose(row, want, rtol=1e-10, atol=1e-15)


def test_cyclic_lr_asymmetric_with_momentum():
    opt = make_opt()
    sched = S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=6)
    n = 20
    mom = [opt.param_groups[0]["momentum"]]
    got = [sched.get_last_lr()[0]]
    for _ in range(n):
        opt.step()
        sched.step()
        got.append(sched.get_last_lr()[0])
        mom.append(opt.param_groups[0]["momentum"])
    it = np.arange(n + 1)
    want, frac = _clr(it, 0.01, 0.1, 2, 6, lambda c, i: 1.0)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_allclose(mom, 0.9 - 0.1 * frac, rtol=1e-10)


def test_cyclic_lr_cycles_adam_beta1():
    opt = make_opt(cls=optim.Adam, betas=(0.9, 0.99))
    sched = S.CyclicLR(opt, base_lr=0.001, max_lr=0.01, step_size_up=2, base_momentum=0.7, max_momentum=0.95)
    betas = []
    for _ in range(5):
        betas.append(opt.param_groups[0]["betas"])
        opt.step()
        sched.step()
    frac = np.interp(np.arange(5) % 4, [0, 2, 4], [0, 1, 0])
    np.testing.assert_allclose([b[0] for b in betas], 0.95 - 0.25 * frac, rtol=1e-12)
    assert all(b[1] == 0.99 for b in betas)


def test_cyclic_lr_errors():
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        S.CyclicLR(make_opt(cls=optim.Adagrad), base_lr=0.01, max_lr=0.1)
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        S.CyclicLR(make_opt(), base_lr=0.01, max_lr=0.1, mode="sawtooth")
    with pytest.raises(ValueError, match="expected 2 values for max_lr, got 3"):
        S.CyclicLR(make_opt(), base_lr=0.01, max_lr=[0.1, 0.2, 0.3])
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        S.CyclicLR([], base_lr=0.01, max_lr=0.1)


def _one_cycle_expected(total, max_lr, pct, div, final_div, anneal, three_phase, m_lo=0.85, m_hi=0.95):
    init = max_lr / div
    low = init / final_div
    if three_phase:
        knots = [0, pct * total - 1, 2 * pct * total - 2, total - 1]
        lr_at, m_at = [init, max_lr, init, low], [m_hi, m_lo, m_hi, m_hi]
    else:
        knots = [0, pct * total - 1, total - 1]
        lr_at, m_at = [init, max_lr, low], [m_hi, m_lo, m_hi]
    lrs, moms = [], []
    for s in range(total):
        k = max(i for i in range(len(knots) - 1) if s >= knots[i]) if s < knots[-1] else len(knots) - 2
        pct_in = (s - knots[k]) / (knots[k + 1] - knots[k])
        w = (1 - math.cos(math.pi * pct_in)) / 2 if anneal == "cos" else pct_in  # 0 -> 1
        lrs.append(lr_at[k] + (lr_at[k + 1] - lr_at[k]) * w)
        moms.append(m_at[k] + (m_at[k + 1] - m_at[k]) * w)
    return np.array(lrs), np.array(moms)


@pytest.mark.parametrize("anneal", ["cos", "linear"])
@pytest.mark.parametrize("three_phase", [False, True])
def test_one_cycle_lr(anneal, three_phase):
    total = 20
    opt = make_opt()
    sched = S.OneCycleLR(opt, max_lr=[1.0, 0.5], total_steps=total, anneal_strategy=anneal,
                         three_phase=three_phase)
    got = trace(opt, sched, total - 1)
    moms = trace(opt, S.OneCycleLR(opt, max_lr=[1.0, 0.5], total_steps=total, anneal_strategy=anneal,
                                   three_phase=three_phase), total - 1, key="momentum")
    for row, mrow, m in zip(got, moms, [1.0, 0.5]):
        want_lr, want_m = _one_cycle_expected(total, m, 0.3, 25.0, 1e4, anneal, three_phase)
        np.testing.assert_allclose(row, want_lr, rtol=1e-10, atol=1e-15)
        np.testing.assert_allclose(mrow, want_m, rtol=1e-10)


def test_one_cycle_lr_total_steps_and_errors():
    opt = make_opt(cls=optim.Adam)
    sched = S.OneCycleLR(opt, max_lr=0.1, epochs=2, steps_per_epoch=5)
    assert sched.total_steps == 10
    assert opt.param_groups[0]["betas"][0] == pytest.approx(0.95)
    for _ in range(10):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="^Tried to step 11 times. The specified number of total steps is 10$"):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="You must define either total_steps OR \\(epochs AND steps_per_epoch\\)"):
        S.OneCycleLR(make_opt(), max_lr=0.1)
    with pytest.raises(ValueError, match="Expected positive integer total_steps, but got 0"):
        S.OneCycleLR(make_opt(), max_lr=0.1, total_steps=0)
    with pytest.raises(ValueError, match="Expected positive integer epochs, but got -1"):
        S.OneCycleLR(make_opt(), max_lr=0.1, epochs=-1, steps_per_epoch=3)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start, but got 1.5"):
        S.OneCycleLR(make_opt(), max_lr=0.1, total_steps=10, pct_start=1.5)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        S.OneCycleLR(make_opt(), max_lr=0.1, total_steps=10, anneal_strategy="exp")
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        S.OneCycleLR(make_opt(cls=optim.Adagrad), max_lr=0.1, total_steps=10)


def test_reduce_lr_on_plateau_with_threshold_cooldown_and_min_lr():
    opt = make_opt([1.0, 2.0])
    sched = S.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, threshold=0.1, threshold_mode="rel",
                                cooldown=2, min_lr=[0.1, 0.5])
    metrics = [10, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]
    # worked by hand: 9.5 is no improvement on 10 with a 10% threshold; after each reduction two
    # cooldown steps do not count; the lr stops at min_lr
    want0 = [1, 1, .5, .5, .5, .5, .25, .25, .25, .25, .125, .125, .125, .125, .1, .1, .1, .1, .1]
    want1 = [2, 2, 1, 1, 1, 1, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5]
    got = []
    for m in metrics:
        sched.step(ember.tensor(float(m)) if m == 5 else m)
        got.append(sched.get_last_lr())
    np.testing.assert_allclose(np.array(got).T, [want0, want1])


def test_reduce_lr_on_plateau_max_mode_abs_threshold():
    opt = make_opt([1.0])
    sched = S.ReduceLROnPlateau(opt, mode="max", factor=0.1, patience=0, threshold=0.5, threshold_mode="abs")
    got = []
    for m in [1.0, 1.6, 2.0, 2.2, 3.0]:
        sched.step(m)
        got.append(opt.param_groups[0]["lr"])
    # 1.6 > 1.0 + 0.5 improves; 2.0 does not (< 2.1): reduce; 2.2 improves on 1.6; 3.0 too
    np.testing.assert_allclose(got, [1.0, 1.0, 0.1, 0.1, 0.1])


def test_reduce_lr_on_plateau_errors_and_state_dict():
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        S.ReduceLROnPlateau(make_opt(), factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown!"):
        S.ReduceLROnPlateau(make_opt(), mode="avg")
    with pytest.raises(ValueError, match="threshold mode pct is unknown!"):
        S.ReduceLROnPlateau(make_opt(), threshold_mode="pct")
    with pytest.raises(ValueError, match="expected 2 min_lrs, got 3"):
        S.ReduceLROnPlateau(make_opt(), min_lr=[0, 0, 0])
    opt = make_opt()
    sched = S.ReduceLROnPlateau(opt, patience=2)
    for m in [3.0, 3.0, 3.0]:
        sched.step(m)
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["num_bad_epochs"] == 2 and sd["best"] == 3.0
    other = S.ReduceLROnPlateau(make_opt(), patience=2)
    other.load_state_dict(sd)
    other.step(3.0)
    sched.step(3.0)
    assert other.get_last_lr() == sched.get_last_lr() == [b * 0.1 for b in BASES]


def test_sequential_lr_second_scheduler_starts_at_its_epoch_zero():
    opt = make_opt([1.0])
    s1 = S.ConstantLR(opt, factor=0.1, total_iters=2)
    s2 = S.ExponentialLR(opt, gamma=0.9)
    sched = S.SequentialLR(opt, schedulers=[s1, s2], milestones=[2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the switch at the milestone is internal: no epoch warning
        got = trace(opt, sched, 8)[0]
    e = np.arange(9)
    np.testing.assert_allclose(got, np.where(e < 2, 0.1, 0.9 ** (e - 2)), rtol=1e-12)


def test_sequential_warmup_then_cosine():
    opt = make_opt()
    warm = S.LinearLR(opt, start_factor=0.25, total_iters=4)
    cos = S.CosineAnnealingLR(opt, T_max=8, eta_min=0.0)
    sched = S.SequentialLR(opt, [warm, cos], milestones=[4])
    got = trace(opt, sched, 12)
    e = np.arange(13)
    for row, b in zip(got, BASES):
        want = np.where(e < 4, b * (0.25 + 0.75 * e / 4), cosine(b, e - 4, 8, 0.0))
        np.testing.assert_allclose(row, want, rtol=1e-12, atol=1e-15)


def test_sequential_lr_errors():
    opt = make_opt()
    s1 = S.StepLR(opt, 2)
    with pytest.raises(ValueError, match="expects number of schedulers provided to be one more than the number "
                                         "of milestone points, but got number of schedulers 1 and the number "
                                         "of milestones to be equal to 1"):
        S.SequentialLR(opt, [s1], milestones=[3])
    other = make_opt()
    with pytest.raises(ValueError, match="expects all schedulers to belong to the same optimizer"):
        S.SequentialLR(opt, [s1, S.StepLR(other, 2)], milestones=[3])


def test_chained_scheduler_composes_the_recursive_forms():
    opt = make_opt([1.0])
    sched = S.ChainedScheduler([S.ConstantLR(opt, factor=0.1, total_iters=2), S.ExponentialLR(opt, gamma=0.9)])
    got = trace(opt, sched, 6)[0]
    k = np.arange(7)
    np.testing.assert_allclose(got, 0.9 ** k * np.where(k < 2, 0.1, 1.0), rtol=1e-12)

    opt = make_opt()
    sched = S.ChainedScheduler([S.StepLR(opt, step_size=3, gamma=0.5), S.ExponentialLR(opt, gamma=0.9)])
    got = trace(opt, sched, 10)
    for row, b in zip(got, BASES):
        k = np.arange(11)
        np.testing.assert_allclose(row, b * 0.5 ** (k // 3) * 0.9 ** k, rtol=1e-12)
    with pytest.raises(ValueError, match="expects all schedulers to belong to the same optimizer"):
        S.ChainedScheduler([S.StepLR(make_opt(), 2), S.StepLR(make_opt(), 2)])


def test_scheduler_state_dict_round_trip():
    opt = make_opt()
    sched = S.StepLR(opt, step_size=2, gamma=0.5)
    for _ in range(3):
        opt.step()
        sched.step()
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 3
    opt2 = make_opt()
    opt2.load_state_dict(opt.state_dict())
    sched2 = S.StepLR(opt2, step_size=5, gamma=0.9)
    sched2.load_state_dict(sd)
    for _ in range(4):
        opt.step()
        sched.step()
        opt2.step()
        sched2.step()
        assert sched2.get_last_lr() == sched.get_last_lr()
    np.testing.assert_allclose(sched.get_last_lr(), [b * 0.5 ** (7 // 2) for b in BASES])


def test_lambda_lr_state_dict_keeps_callable_objects_state():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, e):
            return self.rate ** e

    opt = make_opt()
    sched = S.LambdaLR(opt, [Decay(0.5), lambda e: 1.0])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"rate": 0.5}, None]
    other = S.LambdaLR(make_opt(), [Decay(0.9), lambda e: 1.0])
    other.load_state_dict(sd)
    assert other.lr_lambdas[0].rate == 0.5


def test_warnings_for_misuse():
    opt = make_opt()
    sched = S.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    opt = make_opt()
    sched = S.StepLR(opt, step_size=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        S.StepLR([], step_size=2)


def test_step_with_epoch_uses_the_closed_form():
    opt = make_opt()
    sched = S.ExponentialLR(opt, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        sched.step(3)
    np.testing.assert_allclose(sched.get_last_lr(), [b * 0.125 for b in BASES])
    assert sched.last_epoch == 3
