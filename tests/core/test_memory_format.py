"""Memory formats: the ember.memory_format objects, is_contiguous(memory_format=) and the suggested format
against PyTorch's rules (written out here, and PyTorch 2.13's answers on permuted, sliced, size-1 and
empty tensors), the memory_format= arguments, and the layout elementwise ops give their outputs."""
import copy
import itertools
import pickle

import numpy as np
import pytest

import ember

CL, CL3D = ember.channels_last, ember.channels_last_3d


def dense_in_order(sizes, strides, order):
    """PyTorch's compute_channels_last_contiguous_2d/3d: dense in `order` (innermost first), size-1 dims skipped."""
    expected = 1
    for d in order:
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


def strides_like(sizes, strides, order):
    """PyTorch's is_channels_last_strides_2d_s4 / 3d_s5."""
    if strides[1] == 0:
        return False
    smallest = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < smallest:
            return False
        if d == 0 and smallest == strides[1]:
            return False
        smallest = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


ORDER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}

# PyTorch 2.13's answers: (shape, strides, is_contiguous(), is_contiguous(channels_last), (channels_last_3d),
# x.to(memory_format=cl) is x (the suggested format is channels_last), x.exp() strides, (x + x.contiguous())
# strides, (x.contiguous() + x) strides, empty_like(x) strides).
def _cases():
    return {
        "permuted_nhwc": (lambda: ember.empty(2, 4, 5, 3).permute(0, 3, 1, 2),
                          (2, 3, 4, 5), (60, 1, 15, 3), False, True, False,
                          True, (60, 1, 15, 3), (60, 1, 15, 3), (60, 20, 5, 1), (60, 1, 15, 3)),
        "n111": (lambda: ember.empty(4, 1, 1, 1), (4, 1, 1, 1), (1, 1, 1, 1), True, True, False,
                 False, (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1)),
        "n11w_sliced": (lambda: ember.empty(4, 1, 1, 6)[..., :1], (4, 1, 1, 1), (6, 6, 6, 1), False, False, False,
                        False, (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1)),
        "nc11": (lambda: ember.empty(2, 3, 1, 1), (2, 3, 1, 1), (3, 1, 1, 1), True, True, False,
                 False, (3, 1, 1, 1), (3, 1, 1, 1), (3, 1, 1, 1), (3, 1, 1, 1)),
        "nc11_cl": (lambda: ember.empty(2, 3, 1, 1).to(memory_format=CL), (2, 3, 1, 1), (3, 1, 3, 3), True, True,
                    False, True, (3, 1, 1, 1), (3, 1, 1, 1), (3, 1, 1, 1), (3, 1, 3, 3)),
        "n1h1_cl": (lambda: ember.empty(2, 1, 5, 1).to(memory_format=CL), (2, 1, 5, 1), (5, 1, 1, 1), True, True,
                    False, True, (5, 5, 1, 1), (5, 5, 1, 1), (5, 5, 1, 1), (5, 1, 1, 1)),
        "transposed_1c1w": (lambda: ember.empty(1, 5, 1, 3).transpose(1, 3), (1, 3, 1, 5), (15, 1, 3, 3), False,
                            True, False, False, (15, 1, 15, 3), (15, 1, 3, 3), (15, 5, 15, 1), (15, 1, 3, 3)),
        "sliced_h": (lambda: ember.empty(2, 3, 8, 5).to(memory_format=CL)[:, :, ::2], (2, 3, 4, 5), (120, 1, 30, 3),
                     False, False, False, True, (60, 1, 15, 3), (60, 1, 15, 3), (60, 20, 5, 1), (60, 1, 15, 3)),
        "sliced_c": (lambda: ember.empty(2, 6, 4, 5).to(memory_format=CL)[:, :3], (2, 3, 4, 5), (120, 1, 30, 6),
                     False, False, False, True, (60, 1, 15, 3), (60, 1, 15, 3), (60, 20, 5, 1), (60, 1, 15, 3)),
        "sliced_n": (lambda: ember.empty(4, 3, 4, 5).to(memory_format=CL)[1:3], (2, 3, 4, 5), (60, 1, 15, 3),
                     False, True, False, True, (60, 1, 15, 3), (60, 1, 15, 3), (60, 20, 5, 1), (60, 1, 15, 3)),
        "sliced_w_end": (lambda: ember.empty(2, 3, 4, 5).to(memory_format=CL)[..., :4], (2, 3, 4, 4),
                         (60, 1, 15, 3), False, False, False, True, (48, 1, 12, 3), (48, 1, 12, 3), (48, 16, 4, 1),
                         (48, 1, 12, 3)),
        "expanded_c": (lambda: ember.empty(2, 1, 4, 5).expand(2, 3, 4, 5), (2, 3, 4, 5), (20, 0, 5, 1), False,
                       False, False, False, (60, 20, 5, 1), (60, 20, 5, 1), (60, 20, 5, 1), (60, 20, 5, 1)),
        "c1_contiguous": (lambda: ember.empty(2, 1, 4, 5), (2, 1, 4, 5), (20, 20, 5, 1), True, True, False,
                          False, (20, 20, 5, 1), (20, 20, 5, 1), (20, 20, 5, 1), (20, 20, 5, 1)),
        "zero_n": (lambda: ember.empty(0, 3, 4, 5).to(memory_format=CL), (0, 3, 4, 5), (60, 1, 15, 3), True, True,
                   False, False, (60, 20, 5, 1), (60, 20, 5, 1), (60, 20, 5, 1), (60, 1, 15, 3)),
        "nchw": (lambda: ember.empty(2, 3, 4, 5), (2, 3, 4, 5), (60, 20, 5, 1), True, False, False,
                 False, (60, 20, 5, 1), (60, 20, 5, 1), (60, 20, 5, 1), (60, 20, 5, 1)),
        "nwhc": (lambda: ember.empty(2, 5, 4, 3).permute(0, 3, 2, 1), (2, 3, 4, 5), (60, 1, 3, 12), False, False,
                 False, False, (60, 1, 3, 12), (60, 1, 3, 12), (60, 20, 5, 1), (60, 1, 3, 12)),
        "ndhwc": (lambda: ember.empty(2, 4, 5, 6, 3).permute(0, 4, 1, 2, 3), (2, 3, 4, 5, 6), (360, 1, 90, 18, 3),
                  False, False, True, True, (360, 1, 90, 18, 3), (360, 1, 90, 18, 3), (360, 120, 30, 6, 1),
                  (360, 1, 90, 18, 3)),
    }


@pytest.mark.parametrize("name", list(_cases()))
def test_pytorch_answers_on_permuted_sliced_and_size_one_tensors(name):
    make, shape, strides, contig, cl, cl3d, suggests_cl, exp_st, add_st, add_rev_st, like_st = _cases()[name]
    t = make()
    assert tuple(t.shape) == shape and t.stride() == strides
    assert t.is_contiguous() is contig
    assert t.is_contiguous(memory_format=CL) is cl
    assert t.is_contiguous(memory_format=CL3D) is cl3d
    assert t.is_contiguous(memory_format=ember.preserve_format) is contig  # PyTorch answers as contiguous_format
    fmt = CL if t.dim() == 4 else CL3D
    assert (t.to(memory_format=fmt) is t) is suggests_cl
    assert t.exp().stride() == exp_st
    assert (t + t.contiguous()).stride() == add_st
    assert (t.contiguous() + t).stride() == add_rev_st
    assert ember.empty_like(t).stride() == like_st


def _views(rng, rank):
    """Permuted, sliced, stepped and size-1 views of rank-`rank` tensors."""
    for _ in range(150):
        sizes = [int(s) for s in rng.choice([1, 2, 3, 4], size=rank)]
        t = ember.empty(*[s * 2 for s in sizes])
        perm = [int(p) for p in rng.permutation(rank)]
        t = t.permute(*perm)
        index = tuple(slice(int(rng.integers(0, 2)), None, int(rng.choice([1, 2]))) for _ in range(rank))
        yield t[index]


@pytest.mark.parametrize("rank", [3, 4, 5])
def test_is_contiguous_and_suggested_format_follow_the_rules(rank):
    rng = np.random.default_rng(rank)
    for t in _views(rng, rank):
        sizes, strides = t.shape, t.stride()
        cl = rank == 4 and dense_in_order(sizes, strides, ORDER[4])
        cl3d = rank == 5 and dense_in_order(sizes, strides, ORDER[5])
        assert t.is_contiguous(memory_format=CL) is cl, (sizes, strides)
        assert t.is_contiguous(memory_format=CL3D) is cl3d, (sizes, strides)
        if rank in (4, 5):
            fmt = CL if rank == 4 else CL3D
            like = strides_like(sizes, strides, ORDER[rank])
            assert (t.to(memory_format=fmt) is t) is like, (sizes, strides)


def test_memory_format_objects():
    assert [repr(f) for f in (ember.contiguous_format, CL, CL3D, ember.preserve_format)] == [
        "ember.contiguous_format", "ember.channels_last", "ember.channels_last_3d", "ember.preserve_format"]
    assert str(CL) == "ember.channels_last" and isinstance(CL, ember.memory_format)
    assert repr(ember.memory_format) == "<class 'ember.memory_format'>"
    with pytest.raises(TypeError, match="cannot create 'ember.memory_format' instances"):
        ember.memory_format()
    assert pickle.loads(pickle.dumps(CL)) is CL and copy.deepcopy(CL3D) is CL3D
    assert CL == CL and CL != CL3D and len({CL, CL, CL3D}) == 2


def test_memory_format_arguments_are_checked():
    x = ember.randn(2, 3, 4, 5)
    for call, name in [(lambda: x.is_contiguous(memory_format="x"), "is_contiguous"),
                       (lambda: x.contiguous(memory_format=1), "contiguous"),
                       (lambda: x.clone(memory_format=None), "clone"),
                       (lambda: ember.empty_like(x, memory_format=[]), "empty_like")]:
        with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'memory_format' must be ember.memory_format"):
            call()
    with pytest.raises(TypeError):
        x.is_contiguous(CL)  # keyword-only, as PyTorch
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        ember.empty(2, 3, memory_format=CL)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        ember.randn(2, 3, 4, 5, 6).to(memory_format=CL)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d format"):
        ember.randn(2, 3).contiguous(memory_format=CL3D)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        ember.empty(2, 3, 4, 5, memory_format=ember.preserve_format)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported by the contiguous operator"):
        x.transpose(1, 2).contiguous(memory_format=ember.preserve_format)
    assert x.contiguous(memory_format=ember.preserve_format) is x


def test_factories_and_copies_in_a_format():
    x = ember.randn(2, 3, 4, 5)
    want = (60, 1, 15, 3)
    assert ember.empty(2, 3, 4, 5, memory_format=CL).stride() == want
    assert ember.empty((2, 3, 4, 5), memory_format=CL, dtype=ember.float64).dtype == ember.float64
    for fn in (ember.empty_like, ember.zeros_like, ember.ones_like, ember.rand_like, ember.randn_like):
        assert fn(x, memory_format=CL).stride() == want, fn
    assert ember.full_like(x, 7.0, memory_format=CL).stride() == want
    assert ember.randint_like(x, 5, memory_format=CL).stride() == want
    assert ember.ones_like(x, memory_format=CL).eq(1).all()
    y = x.to(memory_format=CL)
    assert ember.zeros_like(y, memory_format=ember.contiguous_format).is_contiguous()
    for copy_fn in (lambda t: t.contiguous(memory_format=CL), lambda t: t.clone(memory_format=CL),
                    lambda t: ember.clone(t, memory_format=CL), lambda t: t.to(memory_format=CL)):
        c = copy_fn(x)
        assert c.stride() == want and np.array_equal(c.numpy(), x.numpy())
    assert y.contiguous(memory_format=CL) is y and y.to(memory_format=CL) is y
    assert y.contiguous().stride() == (60, 20, 5, 1) and np.array_equal(y.contiguous().numpy(), x.numpy())
    assert y.clone().stride() == want  # preserve_format
    d = x.to(ember.float64, memory_format=CL)
    assert d.dtype == ember.float64 and d.stride() == want
    assert x.to(memory_format=CL, copy=True) is not x
    # PyTorch's quirk: to(contiguous_format) aliases a tensor whose suggested format is contiguous
    t = x.transpose(2, 3)
    assert t.to(memory_format=ember.contiguous_format) is t
    z = ember.randn(2, 3, 4, 5, 6).to(memory_format=CL3D)
    assert z.stride() == (360, 1, 90, 18, 3) and z.is_contiguous(memory_format=CL3D)


def test_copies_in_a_format_carry_gradients():
    x = ember.randn(2, 3, 4, 5, dtype=ember.float64, requires_grad=True)
    for fn in (lambda t: t.to(memory_format=CL), lambda t: t.contiguous(memory_format=CL),
               lambda t: t.clone(memory_format=CL), lambda t: t.to(ember.float32, memory_format=CL)):
        x.grad = None
        weights = ember.arange(120.0).reshape(2, 3, 4, 5)
        (fn(x) * weights.to(fn(x).dtype)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), weights.numpy())


def test_module_to_converts_only_4d_and_5d_tensors():
    import ember.nn as nn
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Conv3d(4, 2, 1), nn.Linear(5, 6))
    m[2] = nn.Identity()  # (a 5-D weight refuses channels_last: tested below)
    m.to(memory_format=CL)
    assert m[0].weight.is_contiguous(memory_format=CL) and not m[0].weight.is_contiguous()
    assert m[1].weight.is_contiguous() and m[3].weight.is_contiguous()
    m2 = nn.Conv3d(3, 4, 2).to(ember.float64, memory_format=CL3D)
    assert m2.weight.dtype == ember.float64 and m2.weight.is_contiguous(memory_format=CL3D)
    with pytest.raises(TypeError, match="argument 'memory_format' must be ember.memory_format"):
        m.to(memory_format="channels_last")


def test_rank_errors_of_module_to_match_pytorch():
    import ember.nn as nn
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        nn.Conv3d(3, 4, 2).to(memory_format=CL)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 3, 1, 5), (2, 1, 4, 1), (3, 4, 2, 2, 2)])
def test_elementwise_ops_keep_channels_last(shape):
    fmt = CL if len(shape) == 4 else CL3D
    x = ember.randn(*shape).to(memory_format=fmt)
    c = ember.randn(*shape)
    bias = ember.randn(shape[1], *([1] * (len(shape) - 2)))
    for y in (x.exp(), x * 2, x + bias, bias + x, x.relu(), ember.where(x > 0, x, x * 0.1), x + x, x.sigmoid()):
        assert y.is_contiguous(memory_format=fmt), y.stride()
    # mixed formats: the first operand that orders the dims decides, as PyTorch's TensorIterator
    assert (c + x).is_contiguous() and (x + c).is_contiguous(memory_format=fmt)
    np.testing.assert_allclose((x + c).numpy(), x.numpy() + c.numpy(), rtol=1e-6)
    x.add_(1.0)  # in place keeps the destination
    assert x.is_contiguous(memory_format=fmt)


def test_elementwise_output_of_permutations_follows_first_input():
    base = ember.randn(2, 3, 4, 5)
    for perm in itertools.permutations(range(4)):
        t = base.permute(*perm)
        u = ember.randn(*t.shape)
        out = t * u
        # dense in t's dim order: strides sorted the same way as t's
        assert np.argsort(out.stride(), kind="stable").tolist() == np.argsort(t.stride(), kind="stable").tolist()
        np.testing.assert_allclose(out.numpy(), t.numpy() * u.numpy(), rtol=1e-6)


def test_make_tensor_memory_format():
    from ember.testing import make_tensor
    t = make_tensor(2, 3, 4, 5, dtype=ember.float32, device="cpu", memory_format=CL)
    assert t.stride() == (60, 1, 15, 3)
    with pytest.raises(ValueError, match="`noncontiguous` and `memory_format` are mutually exclusive"):
        make_tensor(2, 3, 4, 5, dtype=ember.float32, device="cpu", noncontiguous=True, memory_format=CL)


def test_dtype_conversion_keeps_exact_strides_of_size_one_dims():
    # an NC11 channels_last tensor is also contiguous: .to(dtype) must still keep its strides (PyTorch 2.13)
    x = ember.empty_strided((2, 3, 1, 1), (3, 1, 3, 3))
    for y in (x.to(ember.float64), x.double(), x.to(dtype=ember.float16)):
        assert y.stride() == (3, 1, 3, 3)
    assert ember.ones(2, 3).t().to(ember.float64).stride() == (1, 3)
