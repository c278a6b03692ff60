"""ember.autocast's context manager, decorator, nesting, thread-locality, weight-cast cache, the
top-level state functions and bad input, against PyTorch 2.13's behaviour and messages (written out)."""
import threading
import warnings

import pytest

import ember
from ember import amp


def mats():
    g = ember.Generator().manual_seed(0)
    return ember.randn(4, 4, generator=g), ember.randn(4, 4, generator=g)


def test_defaults_and_region_state_restored():
    assert ember.is_autocast_enabled("cpu") is False and ember.is_autocast_enabled() is False  # CUDA's
    assert ember.get_autocast_dtype("cpu") == ember.bfloat16 and ember.get_autocast_dtype("cuda") == ember.float16
    assert ember.is_autocast_cache_enabled() is True
    with ember.autocast("cpu", dtype=ember.float16, cache_enabled=False) as ac:
        assert isinstance(ac, ember.autocast) and ac.fast_dtype == ember.float16
        assert ember.is_autocast_enabled("cpu") and ember.get_autocast_dtype("cpu") == ember.float16
        assert ember.is_autocast_cache_enabled() is False
    assert ember.is_autocast_enabled("cpu") is False and ember.get_autocast_dtype("cpu") == ember.bfloat16
    assert ember.is_autocast_cache_enabled() is True


def test_aliases_are_the_same_class():
    assert ember.autocast is amp.autocast is ember.amp.autocast_mode.autocast
    assert issubclass(ember.cpu.amp.autocast, ember.autocast)


def test_nesting_and_disabling_inside():
    a, b = mats()
    with ember.autocast("cpu"):
        assert ember.mm(a, b).dtype == ember.bfloat16
        with ember.autocast("cpu", enabled=False):
            assert ember.mm(a, b).dtype == ember.float32
            with ember.autocast("cpu", dtype=ember.float16):
                assert ember.mm(a, b).dtype == ember.float16
            assert ember.mm(a, b).dtype == ember.float32
        assert ember.mm(a, b).dtype == ember.bfloat16
    assert ember.mm(a, b).dtype == ember.float32


def test_state_is_restored_after_an_exception():
    with pytest.raises(ValueError):
        with ember.autocast("cpu"):
            raise ValueError("x")
    assert not ember.is_autocast_enabled("cpu")
    assert ember.autocast_increment_nesting() == 1 and ember.autocast_decrement_nesting() == 0


def test_decorator_and_nesting_counter():
    a, b = mats()
    depth = []

    @ember.autocast("cpu")
    def f(x, y):
        depth.append(ember.autocast_increment_nesting() - 1)
        ember.autocast_decrement_nesting()
        return ember.mm(x, y)

    out = f(a, b)
    assert out.dtype == ember.bfloat16 and depth == [1] and f.__name__ == "f"
    with ember.autocast("cpu"):
        f(a, b)
    assert depth[-1] == 2
    assert ember.mm(a, b).dtype == ember.float32


def test_autocast_is_per_thread():
    a, b = mats()
    seen = {}

    def other():
        seen["enabled"] = ember.is_autocast_enabled("cpu")
        seen["dtype"] = ember.mm(a, b).dtype
        with ember.autocast("cpu", dtype=ember.float16):
            seen["inside"] = ember.mm(a, b).dtype

    with ember.autocast("cpu"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert ember.mm(a, b).dtype == ember.bfloat16
    assert seen == {"enabled": False, "dtype": ember.float32, "inside": ember.float16}


def test_weights_are_cast_once_per_region_and_the_cache_is_dropped_at_exit():
    w = ember.randn(4, 4, requires_grad=True)
    x = ember.randn(4, 4)
    with ember.autocast("cpu"):
        y1 = ember.mm(x, w)
        y2 = ember.mm(x, w)
        assert ember._C._autocast_cache_size() == 1  # w only: x does not require grad
        with ember.autocast("cpu"):
            ember.mm(x, w)
        assert ember._C._autocast_cache_size() == 1  # an inner region's exit keeps the outer cache
        (y1.float().sum() + y2.float().sum()).backward()
    assert ember._C._autocast_cache_size() == 0
    assert w.grad.dtype == ember.float32
    expected = 2 * x.to(ember.bfloat16).float().sum(0, keepdim=True).T.expand(4, 4)
    assert ember.allclose(w.grad, expected, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("case", ["cache off", "view", "no grad", "non-leaf"])
def test_what_is_not_cached(case):
    w = ember.randn(4, 4, requires_grad=case != "no grad")
    arg = {"view": lambda: w[:, :], "non-leaf": lambda: w * 1}.get(case, lambda: w)
    with ember.autocast("cpu", cache_enabled=case != "cache off"):
        ember.mm(arg(), arg())
        assert ember._C._autocast_cache_size() == 0


def test_clear_autocast_cache_and_cache_flag():
    w = ember.randn(3, 3, requires_grad=True)
    with ember.autocast("cpu"):
        ember.mm(w, w)
        assert ember._C._autocast_cache_size() == 1
        ember.clear_autocast_cache()
        assert ember._C._autocast_cache_size() == 0
    ember.set_autocast_cache_enabled(False)
    try:
        assert ember.is_autocast_cache_enabled() is False
        with ember.autocast("cpu"):  # cache_enabled=None takes the current setting
            ember.mm(w, w)
            assert ember._C._autocast_cache_size() == 0
    finally:
        ember.set_autocast_cache_enabled(True)


def test_gradients_flow_back_in_the_parameters_dtype():
    lin = ember.nn.Linear(5, 3)
    x = ember.randn(2, 5)
    with ember.autocast("cpu"):
        y = lin(x)
        assert y.dtype == ember.bfloat16
        loss = ember.nn.functional.mse_loss(y, ember.zeros(2, 3))
        assert loss.dtype == ember.float32
    loss.backward()
    assert lin.weight.grad.dtype == ember.float32 and lin.bias.grad.dtype == ember.float32


def test_top_level_setters_and_deprecated_cpu_forms():
    ember.set_autocast_enabled("cpu", True)
    try:
        assert ember.is_autocast_enabled("cpu") and ember.mm(*mats()).dtype == ember.bfloat16
    finally:
        ember.set_autocast_enabled("cpu", False)
    ember.set_autocast_dtype("cpu", ember.float16)
    assert ember.get_autocast_dtype("cpu") == ember.float16
    ember.set_autocast_dtype("cpu", ember.bfloat16)
    with pytest.warns(DeprecationWarning, match=r"is_autocast_cpu_enabled\(\) is deprecated. Please use "
                                                r"ember.is_autocast_enabled\('cpu'\) instead"):
        assert ember.is_autocast_cpu_enabled() is False
    with pytest.warns(DeprecationWarning, match="set_autocast_cpu_enabled"):
        ember.set_autocast_cpu_enabled(True)
    with pytest.warns(DeprecationWarning):
        assert ember.is_autocast_cpu_enabled() is True
    with pytest.warns(DeprecationWarning):
        ember.set_autocast_cpu_enabled(False)
    with pytest.warns(DeprecationWarning, match="set_autocast_cpu_dtype"):
        ember.set_autocast_cpu_dtype(ember.float16)
    with pytest.warns(DeprecationWarning, match="get_autocast_cpu_dtype"):
        assert ember.get_autocast_cpu_dtype() == ember.float16
    ember.set_autocast_dtype("cpu", ember.bfloat16)
    ember.set_autocast_enabled(True)  # one argument: CUDA's flag, which this build only records
    assert ember.is_autocast_enabled() is True and ember.is_autocast_enabled("cpu") is False
    ember.set_autocast_enabled(False)
    assert ember.amp.is_autocast_available("cpu") and ember.amp.is_autocast_available("cuda")


def test_cpu_amp_autocast_warns_futurewarning():
    with pytest.warns(FutureWarning, match=r"`ember.cpu.amp.autocast\(args...\)` is deprecated. Please use "
                                           r"`ember.amp.autocast\('cpu', args...\)` instead."):
        ac = ember.cpu.amp.autocast()
    assert ac.fast_dtype == ember.bfloat16 and ac._enabled is True and ac.device == "cpu"
    with ac:
        assert ember.mm(*mats()).dtype == ember.bfloat16


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.int32])
def test_unsupported_dtype_warns_and_disables(dtype):
    with pytest.warns(UserWarning, match=r"In CPU autocast, but the target dtype is not supported. Disabling "
                                         r"autocast.\nCPU Autocast only supports dtypes of ember.bfloat16, "
                                         r"ember.float16 currently."):
        ac = ember.autocast("cpu", dtype=dtype)
    assert ac._enabled is False
    with ac:
        assert ember.mm(*mats()).dtype == ember.float32
        assert ember.get_autocast_dtype("cpu") == dtype  # PyTorch sets the dtype even when disabled
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.autocast("cpu", dtype=dtype, enabled=False)  # no warning when not enabled


def test_cuda_autocast_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. Disabling autocast."):
        ac = ember.autocast("cuda")
    assert ac._enabled is False and ac.fast_dtype == ember.float16
    with ac:
        assert ember.mm(*mats()).dtype == ember.float32


def test_bad_device_types_and_arguments():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`, got: `<class 'int'>`"):
        ember.autocast(device_type=3)
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, "
                                           "ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone "
                                           "device type at start of device string: xyz"):
        ember.autocast("xyz")
    with pytest.raises(RuntimeError, match="unknown device type for autocast in "
                                           "get_autocast_dispatch_key_from_device_type"):
        ember.is_autocast_enabled("meta")
    with pytest.raises(RuntimeError, match="unsupported scalarType"):
        ember.get_autocast_dtype("meta")
    with pytest.raises(RuntimeError, match="unsupported scalarType"):
        ember.autocast("meta")
    assert ember.amp.is_autocast_available("meta") is False
    with pytest.raises(RuntimeError, match="User specified an unsupported autocast device_type 'meta'"):
        ember.autocast("meta", dtype=ember.bfloat16)
    with pytest.raises(TypeError, match=r"is_autocast_enabled\(\): argument 'device_type' \(position 1\) must be "
                                        r"str, not int"):
        ember.is_autocast_enabled(1)
    with pytest.raises(TypeError, match=r"set_autocast_enabled\(\): argument 'enabled' \(position 2\) must be bool, "
                                        r"not int"):
        ember.set_autocast_enabled("cpu", 1)
    with pytest.raises(TypeError, match=r"set_autocast_dtype\(\): argument 'dtype' \(position 2\) must be "
                                        r"ember.dtype, not int"):
        ember.set_autocast_dtype("cpu", 3)
    with pytest.raises(TypeError, match=r"enabled must be a bool \(got int\)"):
        ember.set_autocast_cache_enabled(1)
    with pytest.raises(TypeError, match=r"autocast\(\)\(func\) requires a callable, but got int"):
        ember.autocast("cpu")(3)


SEEN = {}


class _Square(ember.autograd.Function):
    @staticmethod
    @amp.custom_fwd(device_type="cpu", cast_inputs=ember.float32)
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        SEEN["sq fwd"] = (ember.is_autocast_enabled("cpu"), ember.mm(x, y).dtype)
        return ember.mm(x, y)

    @staticmethod
    @amp.custom_bwd(device_type="cpu")
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        SEEN["sq bwd"] = ember.is_autocast_enabled("cpu")
        return g @ y.T, x.T @ g


class _Plain(ember.autograd.Function):
    @staticmethod
    @amp.custom_fwd(device_type="cpu")
    def forward(ctx, x):
        SEEN["plain fwd"] = ember.mm(x, x).dtype
        return ember.mm(x, x)

    @staticmethod
    @amp.custom_bwd(device_type="cpu")
    def backward(ctx, g):
        SEEN["plain bwd"] = ember.is_autocast_enabled("cpu")
        return g


def test_custom_fwd_casts_inputs_and_runs_with_autocast_off_and_custom_bwd_replays_the_state():
    x = ember.randn(3, 3, dtype=ember.bfloat16, requires_grad=True)
    y = ember.randn(3, 3, requires_grad=True)
    with ember.autocast("cpu"):
        out = _Square.apply(x, y)
    assert out.dtype == ember.float32 and SEEN["sq fwd"] == (False, ember.float32)
    out.sum().backward()
    assert SEEN["sq bwd"] is False and x.grad.dtype == ember.bfloat16
    with ember.autocast("cpu"):
        out = _Plain.apply(ember.randn(3, 3, requires_grad=True))
    assert SEEN["plain fwd"] == ember.bfloat16
    out.float().sum().backward()  # outside the region: custom_bwd re-enters the forward's state
    assert SEEN["plain bwd"] is True
    _Square.apply(x.float(), y)  # outside a region: no cast, autocast stays off
    assert SEEN["sq fwd"] == (False, ember.float32)


def test_custom_fwd_argument_errors():
    with pytest.raises(TypeError, match="device_type"):
        amp.custom_fwd(lambda x: x)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`, got: `<class 'int'>`"):
        amp.custom_fwd(device_type=3)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        amp.custom_bwd(device_type=None)
