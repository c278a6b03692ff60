"""Antialiased resize (_upsample_bilinear2d_aa/_upsample_bicubic2d_aa and their backward ops, and
interpolate(antialias=True)) against the plain NumPy reference of tests/opdb/entries/upsample_aa.py: every dtype
(uint8 to the level), contiguous, strided and channels_last input, scale factors, gradients, and PyTorch's errors.
(test_structured.py skips ops whose names start with "_", so these samples run here.)"""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck
from ember.testing.opinfo import REGISTRY, compare, reference_args, sample_args
from opdb.entries.upsample_aa import resize_aa_ref

OPS = ["_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"]
ALL = OPS + [f"{n}_backward" for n in OPS]
DTYPES = {n: ["uint8", "float32", "float64"] for n in OPS} | {f"{n}_backward": ["float32", "float64"] for n in OPS}
PARAMS = [(n, d) for n in ALL for d in DTYPES[n]]


@pytest.mark.parametrize("name,dtype", PARAMS, ids=[f"{n}-{d}" for n, d in PARAMS])
def test_samples_against_reference(name, dtype):
    info, fn = REGISTRY[name], getattr(ember._C._nn, name)
    for sample in info.sample_inputs(dtype, np.random.default_rng(7)):
        args, kwargs = sample_args(sample, dtype)
        want = info.ref(*reference_args(args), **kwargs)
        msg = f"{name}({dtype}) {args[1:]} {kwargs}"
        compare(fn(*args, **kwargs), want, dtype, info, msg)
        x = args[0]
        strided = x.transpose(2, 3).contiguous().transpose(2, 3)  # W-major: neither layout the kernel reads
        compare(fn(strided, *args[1:], **kwargs), want, dtype, info, msg + " (strided)")
        nhwc = x.contiguous(memory_format=ember.channels_last)
        got = fn(nhwc, *args[1:], **kwargs)
        assert got.is_contiguous(memory_format=ember.channels_last) or got.shape[1] == 1, msg
        compare(got, want, dtype, info, msg + " (channels_last)")


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("dtype", [ember.uint8, ember.float32, ember.float64])
def test_interpolate_antialias(mode, dtype):
    rng = np.random.default_rng(1)
    x = rng.integers(0, 256, (2, 3, 23, 31)).astype(np.uint8) if dtype == ember.uint8 else rng.random((2, 3, 23, 31))
    t = ember.tensor(x).to(dtype)
    cubic = mode == "bicubic"
    tol = dict(rtol=0, atol=0) if dtype == ember.uint8 else dict(rtol=1e-5, atol=1e-5)
    cases = [({"size": [7, 40]}, ([7, 40], False)), ({"size": 9, "align_corners": True}, ([9, 9], True)),
             ({"scale_factor": 0.3}, ([6, 9], False, 0.3, 0.3)),
             ({"scale_factor": [0.5, 1.7]}, ([11, 52], False, 0.5, 1.7)),
             ({"scale_factor": 0.3, "recompute_scale_factor": True}, ([6, 9], False))]
    for kw, ref_args in cases:
        got = F.interpolate(t, mode=mode, antialias=True, **kw)
        want = resize_aa_ref(t.numpy(), *ref_args, cubic=cubic)
        np.testing.assert_allclose(got.numpy().astype(np.float64), want.astype(np.float64), err_msg=str(kw), **tol)


def test_interpolate_antialias_keeps_the_size_as_a_copy():
    x = ember.rand(1, 2, 5, 6)
    y = F.interpolate(x, size=[5, 6], mode="bilinear", antialias=True)
    assert ember.equal(y, x) and y.data_ptr() != x.data_ptr()
    # a factor that keeps the size leaves that axis as it is, as PyTorch does
    z = F.interpolate(x, scale_factor=1.05, mode="bicubic", antialias=True)
    assert ember.equal(z, x)


def test_interpolate_antialias_errors():
    msg = "Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor as input"
    with pytest.raises(ValueError, match=msg):
        F.interpolate(ember.rand(1, 2, 8), size=[4], mode="linear", antialias=True)
    with pytest.raises(ValueError, match=msg):
        F.interpolate(ember.rand(1, 2, 8, 8), size=[4, 4], mode="nearest", antialias=True)


def test_op_errors():
    op = ember._C._nn._upsample_bilinear2d_aa
    x = ember.rand(1, 3, 10, 12)
    with pytest.raises(RuntimeError, match="It is expected output_size equals to 2, but got size 1"):
        op(x, [5], False)
    with pytest.raises(RuntimeError, match="It is expected input_size equals to 4, but got size 3"):
        op(x[0], [5, 7], False)
    with pytest.raises(RuntimeError, match=r"Input and output sizes should be greater than 0, but got input "
                                           r"\(H: 10, W: 12\) output \(H: 5, W: 0\)"):
        op(x, [5, 0], False)
    with pytest.raises(RuntimeError, match="Non-empty 4D data tensor expected but got a tensor with sizes"):
        op(ember.rand(2, 0, 10, 12), [5, 7], False)
    assert list(op(ember.rand(0, 3, 10, 12), [5, 7], False).shape) == [0, 3, 5, 7]
    with pytest.raises(NotImplementedError, match="\"compute_index_ranges_weights\" not implemented for 'Int'"):
        op(x.to(ember.int32), [5, 7], False)
    with pytest.raises(NotImplementedError, match="not implemented for 'BFloat16'"):
        op(x.to(ember.bfloat16), [5, 7], False)
    back = ember._C._nn._upsample_bilinear2d_aa_backward
    with pytest.raises(RuntimeError, match=r"Expected grad_output to have the same shape as output; output.size\(3\) "
                                           r"= 7 but got grad_output.size\(3\) = 6"):
        back(ember.rand(1, 3, 5, 6), [5, 7], [1, 3, 10, 12], False)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("channels_last", [False, True])
def test_gradients(mode, channels_last):
    x = ember.rand(1, 2, 6, 5, dtype=ember.float64)
    if channels_last:
        x = x.contiguous(memory_format=ember.channels_last)
    x.requires_grad_(True)
    for kw in ({"size": [3, 8]}, {"size": [4, 2], "align_corners": True}, {"scale_factor": [0.6, 1.5]}):
        def f(t):
            return F.interpolate(t, mode=mode, antialias=True, **kw)
        assert gradcheck(f, (x,)), kw
        assert gradgradcheck(f, (x,)), kw


def test_backward_is_the_adjoint_of_the_forward():
    # <A x, g> == <x, A^T g> for the op and its backward, float64
    rng = np.random.default_rng(5)
    for name in OPS:
        x, g = ember.tensor(rng.random((2, 3, 11, 7))), ember.tensor(rng.random((2, 3, 4, 13)))
        fwd = getattr(ember._C._nn, name)(x, [4, 13], False)
        bwd = getattr(ember._C._nn, f"{name}_backward")(g, [4, 13], [2, 3, 11, 7], False)
        assert abs(float((fwd * g).sum()) - float((x * bwd).sum())) < 1e-9


def test_scripted_interpolate_antialias_equals_eager():
    def resize(x: ember.Tensor, factor: float) -> ember.Tensor:
        a = F.interpolate(x, scale_factor=factor, mode="bilinear", antialias=True)
        b = F.interpolate(x, size=[5, 9], mode="bicubic", align_corners=True, antialias=True)
        return a.sum() + b.sum() + a.mean()

    scripted = ember.jit.script(resize)
    for dtype in (ember.float32, ember.float64):
        x = ember.rand(2, 3, 17, 13, dtype=dtype)
        assert ember.equal(scripted(x, 0.45), resize(x, 0.45))

    def small(x: ember.Tensor) -> ember.Tensor:
        return F.interpolate(x, size=[6, 7], mode="bilinear", antialias=True)

    x = ember.randint(0, 256, (1, 3, 20, 15), dtype=ember.uint8)
    assert ember.equal(ember.jit.script(small)(x), small(x))
