"""ember.amp.GradScaler and its fused ops, against PyTorch 2.13's documented behaviour and messages
(written out here) and NumPy for the unscaled values."""
import math
import pickle

import numpy as np
import pytest

import ember
from ember.amp import GradScaler


def model_and_opt(lr=0.1):
    ember.manual_seed(0)
    lin = ember.nn.Linear(3, 2)
    return lin, ember.optim.SGD(lin.parameters(), lr=lr)


def backward(scaler, lin, poison=None):
    loss = lin(ember.ones(4, 3)).sum()
    scaler.scale(loss).backward()
    if poison is not None:
        lin.weight.grad[0, 0] = poison


def test_scale_multiplies_by_the_initial_scale_and_containers():
    s = GradScaler("cpu", init_scale=8.0)
    t = ember.tensor([1.0, 2.0])
    assert s.scale(t).tolist() == [8.0, 16.0] and s.get_scale() == 8.0
    out = s.scale([t, (t, t)])
    assert isinstance(out, list) and isinstance(out[1], tuple) and out[1][1].tolist() == [8.0, 16.0]
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        s.scale([t, 3])


@pytest.mark.parametrize("poison", [math.inf, -math.inf, math.nan])
def test_step_is_skipped_on_a_non_finite_gradient_and_the_scale_backs_off(poison):
    lin, opt = model_and_opt()
    before = [p.detach().clone() for p in lin.parameters()]
    s = GradScaler("cpu", init_scale=1024.0, backoff_factor=0.25)
    backward(s, lin, poison)
    assert s.step(opt) is None
    for p, b in zip(lin.parameters(), before):
        assert ember.equal(p.detach(), b)
    s.update()
    assert s.get_scale() == 256.0 and s._get_growth_tracker() == 0


def test_clean_step_unscales_and_steps():
    lin, opt = model_and_opt(lr=1.0)
    w0 = lin.weight.detach().clone()
    s = GradScaler("cpu", init_scale=512.0)
    backward(s, lin)
    s.unscale_(opt)
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.full((2, 3), 4.0))  # d(sum)/dw = sum over 4 rows of 1
    s.step(opt)
    np.testing.assert_allclose(lin.weight.detach().numpy(), w0.numpy() - 4.0, rtol=1e-6)
    s.update()
    assert s.get_scale() == 512.0 and s._get_growth_tracker() == 1


def test_scale_grows_after_growth_interval_clean_steps_and_not_past_float32():
    lin, opt = model_and_opt(lr=0.0)
    s = GradScaler("cpu", init_scale=4.0, growth_factor=3.0, growth_interval=3)
    scales = []
    for _ in range(7):
        opt.zero_grad()
        backward(s, lin)
        s.step(opt)
        s.update()
        scales.append(s.get_scale())
    assert scales == [4.0, 4.0, 12.0, 12.0, 12.0, 36.0, 36.0]
    big, tracker = ember.tensor(3e38), ember.tensor(0, dtype=ember.int32)
    ember._amp_update_scale_(big, tracker, ember.tensor(0.0), 2.0, 0.5, 1)
    assert big.item() == pytest.approx(3e38) and tracker.item() == 0  # 6e38 overflows float32: the scale stays


def test_state_machine_errors():
    lin, opt = model_and_opt()
    s = GradScaler("cpu")
    with pytest.raises(AssertionError, match=r"Attempted step but _scale is None.  This may indicate your script did "
                                             r"not use scaler.scale\(loss or outputs\) earlier in the iteration."):
        s.step(opt)
    backward(s, lin)
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer since the last "
                                           r"update\(\)."):
        s.unscale_(opt)
    s.step(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)."):
        s.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)."):
        s.step(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported if GradScaler is enabled."):
        s.step(opt, closure=lambda: 0)
    s.update()
    s.unscale_(opt)  # a new iteration
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0."):
        GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="The backoff factor must be < 1.0."):
        GradScaler("cpu", backoff_factor=1.0)
    fresh = GradScaler("cpu")
    fresh.scale(ember.ones(1))
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update."):
        fresh.update()


def test_fp16_gradients_are_refused():
    p = ember.nn.Parameter(ember.ones(2, dtype=ember.float16))
    p.grad = ember.ones(2, dtype=ember.float16)
    s = GradScaler("cpu")
    s.scale(ember.ones(1))
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        s.unscale_(ember.optim.SGD([p], lr=0.1))


def test_update_with_new_scale():
    lin, opt = model_and_opt()
    s = GradScaler("cpu")
    backward(s, lin)
    s.update(5.0)
    assert s.get_scale() == 5.0
    s.update(ember.tensor(7.0))
    assert s.get_scale() == 7.0
    with pytest.raises(AssertionError, match="new_scale should be a float or a 1-element"):
        s.update(ember.tensor([1.0, 2.0]))


def test_state_dict_round_trip_and_pickle():
    lin, opt = model_and_opt()
    s = GradScaler("cpu", init_scale=64.0, growth_factor=4.0, backoff_factor=0.125, growth_interval=5)
    backward(s, lin, math.inf)
    s.step(opt)
    s.update()
    sd = s.state_dict()
    assert sd == {"scale": 8.0, "growth_factor": 4.0, "backoff_factor": 0.125, "growth_interval": 5,
                  "_growth_tracker": 0}
    t = GradScaler("cpu")
    t.load_state_dict(sd)
    assert t.state_dict() == sd and t.get_scale() == 8.0
    t.scale(ember.ones(1))
    sd2 = dict(sd, scale=2.0, _growth_tracker=3)
    t.load_state_dict(sd2)
    assert t.state_dict() == sd2
    assert pickle.loads(pickle.dumps(s)).state_dict() == sd
    with pytest.raises(RuntimeError, match="The source state dict is empty, possibly because it was saved from a "
                                           "disabled instance of GradScaler."):
        t.load_state_dict({})


def test_disabled_scaler_passes_through():
    lin, opt = model_and_opt()
    s = GradScaler("cpu", enabled=False)
    t = ember.ones(2)
    assert s.scale(t) is t and s.get_scale() == 1.0 and s.state_dict() == {} and not s.is_enabled()
    lin(ember.ones(1, 3)).sum().backward()
    w0 = lin.weight.detach().clone()
    s.step(opt)
    assert not ember.equal(lin.weight.detach(), w0)


def test_cuda_and_deprecated_cpu_forms_warn():
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available.  Disabling."):
        assert not GradScaler().is_enabled()
    with pytest.warns(FutureWarning, match=r"`ember.cpu.amp.GradScaler\(args...\)` is deprecated. Please use "
                                           r"`ember.amp.GradScaler\('cpu', args...\)` instead."):
        s = ember.cpu.amp.GradScaler(init_scale=4.0)
    assert s.is_enabled() and s.get_scale() == 4.0 and isinstance(s, GradScaler)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.bfloat16])
def test_fused_unscale_matches_numpy_and_flags_non_finite(dtype):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(n) for n in (1, 7, 100_003)]
    grads = [ember.tensor(a).to(dtype) for a in arrays]
    strided = ember.tensor(rng.standard_normal((6, 8))).to(dtype).T  # not contiguous
    grads.append(strided)
    before = [g.double().numpy().copy() for g in grads]
    found, inv = ember.zeros(()), ember.tensor(0.25)
    assert ember._amp_foreach_non_finite_check_and_unscale_(grads, found, inv) is None
    assert found.item() == 0.0
    for g, b in zip(grads, before):
        ref = (b * 0.25).astype(np.float32)
        np.testing.assert_allclose(g.double().numpy(), ref, rtol=1e-2 if dtype == ember.bfloat16 else 1e-6)
    assert not strided.is_contiguous()
    grads[2][50_000] = math.nan
    ember._amp_foreach_non_finite_check_and_unscale_(grads, found, inv)
    assert found.item() == 1.0


def test_fused_ops_check_their_arguments_as_pytorch():
    g = [ember.ones(2)]
    cases = [((g, ember.zeros(2), ember.tensor(1.0)), "found_inf must be a 1-element tensor."),
             ((g, ember.zeros((), dtype=ember.float64), ember.tensor(1.0)), "found_inf must be a float tensor."),
             ((g, ember.zeros(()), ember.ones(2)), "inv_scale must be a 1-element tensor."),
             ((g, ember.zeros(()), ember.ones((), dtype=ember.float64)), "inv_scale must be a float tensor."),
             # all on meta (mixed devices are refused before): no memory to read or write
             (([ember.ones(2, device="meta")], ember.zeros((), device="meta"), ember.ones((), device="meta")),
              "found_inf must be a tensor with data")]
    for args, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            ember._amp_foreach_non_finite_check_and_unscale_(*args)
    s, gt, f = ember.tensor(4.0), ember.tensor(0, dtype=ember.int32), ember.tensor(0.0)
    cases = [((s, gt.long(), f), "growth_tracker must be an int tensor."),
             ((s.double(), gt, f), "current_scale must be a float tensor."),
             ((ember.ones(2), gt, f), "current_scale must be a 1-element tensor."),
             ((s, ember.zeros(2, dtype=ember.int32), f), "growth_tracker must be a 1-element tensor."),
             ((s, gt, ember.ones(2)), "found_inf must be a 1-element tensor."),
             ((s, gt, f.double()), "found_inf must be a float tensor."),
             ((s.to("meta"), gt.to("meta"), f.to("meta")), "growth_tracker must be a tensor with data")]
    for args, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            ember._amp_update_scale_(*args, 2.0, 0.5, 2)
    assert ember._amp_update_scale_(s, gt, f, 2.0, 0.5, 2) is s and gt.item() == 1
    ember._amp_update_scale_(s, gt, f, 2.0, 0.5, 2)
    assert s.item() == 8.0 and gt.item() == 0
    ember._amp_update_scale_(s, gt, ember.tensor(1.0), 2.0, 0.5, 2)
    assert s.item() == 4.0 and gt.item() == 0
