"""Internal ops reachable from Python (backward helpers, underscore ops in ember._C) check their
arguments like public ones: ranks, sizes, dtypes and devices of every tensor argument, optional ones
included, before a kernel reads them. Each bad call raises a Python exception naming the argument
(before these checks, several read out of bounds or through a meta tensor's missing data)."""
import pytest

import ember as e
from tools.opgen import opdb

OPS = {op.name: op for op in opdb.load()}
META = "meta"


def ones(*s, **kw):
    return e.ones(*s, **kw)


# ---- batch_norm_backward (issue 29's crash) -----------------------------------------------------

def test_batch_norm_backward_issue_example():
    with pytest.raises(
        RuntimeError, match=r"batch_norm_backward\(\): expected save_mean to have 3 elements, but got 0"
    ):
        e._C._nn.batch_norm_backward(ones(2, 3), ones(2, 3), None, ones(0), ones(3), True)


@pytest.mark.parametrize("args,match", [
    ((ones(3), ones(3), None, ones(1), ones(1), True), r"expected input to have at least 2 dimensions"),
    ((ones(2, 3), ones(2, 3), ones(4), ones(3), ones(3), True), r"expected weight to have 3 elements, but got 4"),
    ((ones(2, 3), ones(2, 3), None, ones(3), ones(2), False), r"expected save_invstd to have 3 elements"),
    ((ones(2, 4), ones(2, 3), None, ones(3), ones(3), True), r"expected grad_output of shape \[2, 3\]"),
    ((ones(2, 3), ones(2, 3), ones(3, dtype=e.int64), ones(3), ones(3), True),
     r"expected weight to be a floating-point tensor, but got dtype int64"),
    ((ones(2, 3), ones(2, 3), None, ones(3, dtype=e.complex64), ones(3), True), r"save_mean to be a floating-point"),
])
def test_batch_norm_backward_checks_every_argument(args, match):
    with pytest.raises(RuntimeError, match=match):
        e._C._nn.batch_norm_backward(*args)


def test_batch_norm_backward_none_statistics():
    with pytest.raises((RuntimeError, TypeError), match="save_mean"):
        e._C._nn.batch_norm_backward(ones(2, 3), ones(2, 3), None, None, ones(3), True)


def test_batch_norm_backward_still_computes():
    # against a plain reference: training-mode gradient of batch norm with weight w
    import numpy as np
    rng = np.random.default_rng(0)
    x, g, w = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.standard_normal(3)
    mean, invstd = x.mean(0), 1 / np.sqrt(x.var(0) + 1e-5)
    xhat = (x - mean) * invstd
    gi = w * invstd * (g - g.mean(0) - xhat * (g * xhat).mean(0))
    out = e._C._nn.batch_norm_backward(e.tensor(g), e.tensor(x), e.tensor(w), e.tensor(mean), e.tensor(invstd), True)
    np.testing.assert_allclose(out[0].numpy(), gi, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out[1].numpy(), (g * xhat).sum(0), rtol=1e-10)
    np.testing.assert_allclose(out[2].numpy(), g.sum(0), rtol=1e-10)


def test_native_batch_norm_refuses_integer_statistics():
    with pytest.raises(RuntimeError, match="running_mean to be a floating-point tensor"):
        e.native_batch_norm(ones(2, 3), None, None, e.zeros(3, dtype=e.int64), ones(3), False, 0.1, 1e-5)


# ---- pooling backward helpers -------------------------------------------------------------------

def test_adaptive_avg_pool_backward_planes_must_match():
    with pytest.raises(RuntimeError, match=r"adaptive_avg_pool_backward\(\): grad_output \[4, 3, 2, 2\] does not fit"):
        e._C._nn.adaptive_avg_pool_backward(ones(4, 3, 2, 2), [1, 3, 5, 5])
    with pytest.raises(RuntimeError, match="does not fit"):
        e._C._nn.adaptive_avg_pool_backward(ones(1, 9, 5, 5), [1, 3, 5, 5])


# ---- devices: a meta tensor among CPU ones has no data to read ----------------------------------

DEVICE_CASES = [
    ("batch_norm_backward", lambda m: (ones(2, 3), ones(2, 3), ones(3, device=m), ones(3), ones(3), True)),
    ("batch_norm_backward", lambda m: (ones(2, 3), ones(2, 3), None, ones(3), ones(3, device=m), True)),
    ("native_batch_norm", lambda m: (ones(2, 3), None, None, ones(3, device=m), ones(3), True, 0.1, 1e-5)),
    ("index_select", lambda m: (ones(3, 4), 0, e.zeros(2, dtype=e.int64, device=m))),
    ("gather", lambda m: (ones(3, 4), 1, e.zeros(3, 2, dtype=e.int64, device=m))),
    ("mm", lambda m: (ones(2, 3), ones(3, 2, device=m))),
    ("max_pool_backward", lambda m: (ones(1, 1, 2, 2), e.zeros(1, 1, 2, 2, dtype=e.int64, device=m), [1, 1, 4, 4])),
    ("_nll_loss", lambda m: (ones(2, 3), e.zeros(2, dtype=e.int64, device=m), None, 1, -100)),
    ("convolution", lambda m: (ones(1, 1, 4, 4), ones(1, 1, 3, 3, device=m), None, [1, 1], [0, 0], [1, 1],
                               False, [0, 0], 1)),
    ("masked_fill", lambda m: (ones(3), e.zeros(3, dtype=e.bool, device=m), 1.0)),
    ("take", lambda m: (ones(3), e.zeros(2, dtype=e.int64, device=m))),
]


@pytest.mark.parametrize("name,make", DEVICE_CASES, ids=[c[0] for c in DEVICE_CASES])
def test_mixed_devices_raise(name, make):
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at least two "
                                           "devices, (cpu and meta|meta and cpu)"):
        OPS[name].function(e)(*make(META))


def test_out_on_another_device_raises():
    with pytest.raises(RuntimeError, match="same device"):
        e.cumsum(ones(3), 0, out=e.empty(3, device=META))


def test_cpu_scalars_join_meta_tensors():
    # PyTorch's rule: a 0-dim CPU tensor may be used with tensors of another device
    out = e.masked_fill(e.ones(3, device=META), e.zeros(3, dtype=e.bool, device=META), e.tensor(2.0))
    assert out.device.type == "meta" and out.shape == (3,)
    # but not as the first argument of a CPU kernel that would read a meta index (the fuzzer's crash)
    with pytest.raises(RuntimeError, match="same device"):
        e.take(e.tensor(1.0), e.zeros(1, 5, dtype=e.int64, device=META))
    with pytest.raises(RuntimeError, match="same device"):  # nor as out=
        e.cumsum(e.ones(3, device=META), 0, out=e.tensor(0.0))


def test_every_hand_written_op_checks_devices():
    # the generated wrappers carry the check: every op of the database with a kernel of its own and
    # two or more tensor arguments, except copy_ (which copies across devices by design)
    import pathlib
    import re
    from tools.opgen import opdb
    # the newest build (make wheels leaves an older one in build/wheel)
    gens = pathlib.Path(e.__file__).resolve().parents[1].glob("build/*/gen/generated/autograd")
    gen = max(gens, key=lambda p: p.stat().st_mtime, default=None)
    if gen is None:
        pytest.skip("the generated sources are not beside this installation")
    text = "".join(p.read_text() for p in gen.glob("*.cpp"))
    for op in opdb.load():
        if op.pointwise or op.composite or op.entry.get("mixed_devices"):
            continue
        n = sum(1 for a in op.args if a.type in ("Tensor", "TensorLike", "Tensor?", "TensorLike?"))
        if n >= 2:
            assert re.search(rf'check_same_device\("{op.public_name}"', text), op.name


# ---- found by the fuzzer (tools/fuzz) -----------------------------------------------------------

def test_suspend_forward_ad_with_an_ambiguous_flag():
    # its truth raised inside the binding, which returned None anyway: a SystemError
    with pytest.raises(RuntimeError, match="ambiguous"):
        e._C._suspend_forward_ad(e.ones(3))


def test_mvlgamma_of_inf_with_a_huge_p_returns():
    # p = 2**32 + 1 terms of lgamma, all infinite: the sum stops at the first
    assert e.mvlgamma(e.tensor([float("inf")], dtype=e.float16), 2**32 + 1).tolist() == [float("inf")]
