"""Scripted code called inside an eager `with ember.autocast('cpu')` region casts as eager code does (PyTorch's
Autocast dispatch key applies to the ops a script runs): matmul, linear and conv run in the region's dtype,
fp32-policy ops in float32, Tensor.to keeps its meaning, and ember.is_autocast_enabled('cpu') reads the region.
References: NumPy products of the bfloat16-rounded operands."""

import numpy as np
import pytest

import ember
from ember import nn


def bf16_values(t):
    return t.to(ember.bfloat16).to(ember.float64).numpy()


@ember.jit.script
def product(a: ember.Tensor, b: ember.Tensor) -> ember.Tensor:
    return a @ b


@ember.jit.script
def cast_then_product(a: ember.Tensor, b: ember.Tensor) -> ember.Tensor:
    c = a.to(ember.bfloat16)  # one bfloat16 and one float32 operand: the region's cast makes them agree
    return c @ b


@ember.jit.script
def to_forms(a: ember.Tensor, b: ember.Tensor):
    return a.to(ember.float32), a.to(b), a.to(dtype=ember.float64), a.to("cpu", ember.bfloat16), a.float()


@ember.jit.script
def region_state(x: ember.Tensor) -> bool:
    return ember.is_autocast_enabled("cpu")


def operands():
    rng = np.random.default_rng(0)
    return (ember.tensor(rng.normal(size=(4, 5)).astype(np.float32)),
            ember.tensor(rng.normal(size=(5, 3)).astype(np.float32)))


def test_scripted_matmul_runs_in_the_region_dtype():
    a, b = operands()
    with ember.autocast("cpu", dtype=ember.bfloat16):
        got = product(a, b)
        mixed = cast_then_product(a, b)
    outside = product(a, b)
    expected = bf16_values(a) @ bf16_values(b)
    assert got.dtype == ember.bfloat16 and mixed.dtype == ember.bfloat16 and outside.dtype == ember.float32
    np.testing.assert_allclose(got.to(ember.float64).numpy(), expected, rtol=2 ** -7, atol=1e-2)
    np.testing.assert_array_equal(mixed.to(ember.float64).numpy(), got.to(ember.float64).numpy())
    np.testing.assert_allclose(outside.numpy(), a.numpy().astype(np.float64) @ b.numpy(), rtol=1e-5, atol=1e-5)


def test_scripted_tensor_to_ignores_the_region():
    a, b = operands()
    with ember.autocast("cpu", dtype=ember.bfloat16):
        f32, like_b, f64, bf, flt = to_forms(a, b.double())
    assert [t.dtype for t in (f32, like_b, f64, bf, flt)] == [ember.float32, ember.float64, ember.float64,
                                                               ember.bfloat16, ember.float32]
    np.testing.assert_array_equal(f64.numpy(), a.numpy().astype(np.float64))
    np.testing.assert_array_equal(bf.to(ember.float64).numpy(), bf16_values(a))
    a.to(ember.float32).add_(0)  # to() of the same dtype aliases in scripted code too
    assert to_forms(a, a)[0].data_ptr() == a.data_ptr()


def test_scripted_module_in_a_region_casts_its_weights():
    ember.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 4 * 4, 5))
    scripted = ember.jit.script(model)
    x = ember.randn(2, 2, 6, 6)
    with ember.autocast("cpu", dtype=ember.bfloat16):
        got = scripted(x)
        conv = ember.jit.script(model[0])(x)
    assert got.dtype == ember.bfloat16 and conv.dtype == ember.bfloat16
    # the same bfloat16 computation in NumPy: bfloat16-rounded operands, products summed in float64, each
    # layer's output rounded to bfloat16 as the region's ops return it
    w, bias = bf16_values(model[0].weight.detach()), bf16_values(model[0].bias.detach())
    xs = bf16_values(x)
    windows = np.lib.stride_tricks.sliding_window_view(xs, (3, 3), axis=(2, 3))  # n, c, 4, 4, 3, 3
    conv_ref = np.einsum("nchwij,ocij->nohw", windows, w) + bias[None, :, None, None]
    np.testing.assert_allclose(conv.to(ember.float64).numpy(), conv_ref, rtol=2 ** -7, atol=2e-2)
    hidden = bf16_values(ember.tensor(np.maximum(conv.to(ember.float64).numpy(), 0)).reshape(2, -1))
    lin_ref = hidden @ bf16_values(model[3].weight.detach()).T + bf16_values(model[3].bias.detach())
    np.testing.assert_allclose(got.to(ember.float64).numpy(), lin_ref, rtol=2 ** -7, atol=2e-2)


def test_scripted_is_autocast_enabled_reads_the_region():
    x = ember.ones(1)
    assert region_state(x) is False
    with ember.autocast("cpu"):
        assert region_state(x) is True
        with ember.autocast("cpu", enabled=False):
            assert region_state(x) is False
    assert region_state(x) is False


def test_scripted_is_autocast_enabled_names_other_device_types():
    @ember.jit.script
    def state_of(x: ember.Tensor, device_type: str) -> bool:
        return ember.is_autocast_enabled(device_type)

    assert state_of(ember.ones(1), "cpu") is False
    with pytest.raises(RuntimeError, match="reads the CPU autocast state only, got device_type 'cuda'"):
        state_of(ember.ones(1), "cuda")
