"""nn.functional failures and unclear messages found by the fuzzer (tools/fuzz, issue 29), one test per
class of cause, each against PyTorch 2.13's behaviour written out here: the exception type PyTorch raises
and a message naming the argument, or PyTorch's result."""
import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F


# ---- Python's own errors inside our code: the argument is named instead -------------------------------

def test_an_unhashable_mode_is_refused_as_an_unknown_mode():
    # PyTorch: NotImplementedError "... for the modes: nearest | linear | ... (got [1, 'a'])"
    with pytest.raises(NotImplementedError, match=r"\(got \[1, 'a'\]\)"):
        F.interpolate(ember.ones(1, 2, 4, 4), scale_factor=2, mode=[1, "a"])


def test_max_unpool_output_size_must_be_a_sequence():
    x, idx = ember.ones(1, 1, 2, 2), ember.zeros(1, 1, 2, 2, dtype=ember.int64)
    # (PyTorch itself fails here with "object of type 'int' has no len()"; we name the argument)
    with pytest.raises(TypeError, match="argument 'output_size' must be a sequence of ints, not int"):
        F.max_unpool2d(x, idx, 2, output_size=3)
    assert F.max_unpool2d(x, idx, 2, output_size=[4, 4]).shape == (1, 1, 4, 4)


def test_an_int_argument_given_a_tensor_of_several_values():
    x = ember.ones(1, 2, 4, 4)
    # PyTorch's binding: TypeError "group_norm(): argument 'num_groups' (position 2) must be int, not Tensor"
    with pytest.raises(TypeError, match="group_norm\\(\\): argument 'num_groups' must be int, not Tensor"):
        F.group_norm(x, ember.tensor([1, 2]))
    # one integer in a Tensor is an int, as in PyTorch
    assert F.group_norm(x, ember.tensor(2)).shape == (1, 2, 4, 4)


@pytest.mark.parametrize("call,name", [
    (lambda x: F.threshold(x, ember.ones(3), 1.0), "threshold"),
    (lambda x: F.softplus(x, ember.ones(2)), "beta"),
])
def test_a_float_argument_given_a_tensor_of_several_values_names_it(call, name):
    # PyTorch: TypeError "softplus(): argument 'beta' (position 2) must be Number, not Tensor" (its
    # float arguments refuse a Tensor); before, float() failed later without naming the argument
    with pytest.raises(TypeError, match=f"argument '{name}' \\(position 2\\) must be float, not Tensor"):
        call(ember.ones(2, 3))


def test_celu_alpha_zero_is_pytorchs_runtime_error():
    with pytest.raises(RuntimeError, match="ZeroDivisionError: alpha cannot be 0 for CELU"):
        F.celu(ember.ones(2), alpha=0.0)


# ---- ints for PyTorch's float arguments: floats, not int64 Scalars that overflow ------------------------

def test_huge_int_for_a_float_argument_is_a_float():
    a = np.array([[0.0, 3.0], [1.0, -1.0]], dtype=np.float32)
    b = np.ones((2, 2), dtype=np.float32)
    ea, eb = ember.tensor(a), ember.tensor(b)
    d = np.abs(a - b).astype(np.float64)
    # delta 2**70: every |d| < delta, so huber is 0.5 d^2 (PyTorch: 1.125); smooth_l1 0.5 d^2 / beta
    assert F.huber_loss(ea, eb, delta=2**70).item() == pytest.approx((0.5 * d * d).mean())
    assert F.smooth_l1_loss(ea, eb, beta=2**70).item() == pytest.approx((0.5 * d * d / 2.0**70).mean(), rel=1e-5)
    # p = 2**70: |x|^p overflows to inf in float32 as in PyTorch (which returns [inf, inf])
    assert np.isinf(F.pairwise_distance(ea, eb, p=2**70).numpy()).all()


# ---- sizes: refused at once (named, with the bytes), never a Python list of a huge view ----------------

def test_ctc_loss_lengths_are_counted_before_they_become_lists():
    lp = ember.ones(4, 4, 5)
    huge = ember.ones(1, dtype=ember.int64).expand(2**40)
    # PyTorch: RuntimeError "input_lengths must be of size batch_size"
    with pytest.raises(RuntimeError, match="expected 4 input_lengths \\(one per sample\\), got 1099511627776"):
        F.ctc_loss(lp, ember.ones(4, 3, dtype=ember.int64), huge, ember.ones(4, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="expected 4 target_lengths"):
        F.ctc_loss(lp, ember.ones(4, 3, dtype=ember.int64), ember.full([4], 4, dtype=ember.int64), huge)


def test_ctc_loss_huge_target_fails_at_once_with_out_of_memory():
    # 1-D targets of 2**42 (an expanded view) and target lengths 2**40: PyTorch asks for its
    # (T, N, 2 S + 1) forward variables and fails to allocate; so do we, before any list is made
    targets = ember.ones(1, dtype=ember.int64).expand(2**42)
    with pytest.raises(ember.OutOfMemoryError, match=r"ctc_loss: cannot allocate the forward variables of shape "
                                                     r"\[4, 4, 2199023255553\] \(140737488355392 bytes\)"):
        F.ctc_loss(ember.ones(4, 4, 5), targets, [4] * 4, [2**40] * 4)


def test_ctc_loss_still_computes():
    # one sample, T = 1, one label: the only alignment emits it, so the loss is -log p(label)
    p = np.array([[[0.2, 0.5, 0.3]]])
    loss = F.ctc_loss(ember.tensor(np.log(p)), ember.tensor([[1]]), [1], [1], reduction="sum")
    assert loss.item() == pytest.approx(-math.log(0.5))


def test_interpolate_out_of_memory_is_embers_error():
    with pytest.raises(ember.OutOfMemoryError, match=r"interpolate: cannot allocate the output of shape "
                                                     r"\[1, 1, 1099511627776\] \(4398046511104 bytes\)"):
        F.interpolate(ember.ones(1, 1, 2), size=2**40)


@pytest.mark.parametrize("call", [
    lambda: F.upsample_nearest(ember.ones(0, 0, 0), (9,)),
    lambda: F.interpolate(ember.ones(1, 1, 0, 3), size=(2, 2), mode="bilinear"),
])
def test_interpolate_empty_spatial_input(call):
    # PyTorch: RuntimeError "Input and output sizes should be greater than 0, but got input (H: 0, W: 3)
    # output (H: 2, W: 2)" (before, an IndexError from an index map into nothing)
    with pytest.raises(RuntimeError, match="Input and output sizes should be greater than 0"):
        call()


# ---- window arithmetic that wrapped int64 (a crash: max_pool1d(x, 2**62, dilation=3) segfaulted) ----------

def test_pool_window_span_past_int64_is_refused():
    x = ember.ones(1, 2).t()  # (C=2, L=1) unbatched
    # PyTorch: RuntimeError "pad should be at most half of effective kernel size, but got pad=0,
    # kernel_size=4611686018427387904 and dilation=3" (its span wraps negative); we say why
    with pytest.raises(RuntimeError, match="effective kernel size .* overflows int64"):
        F.max_pool1d(x, 2**62, dilation=3)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.max_pool1d(ember.ones(1, 1, 4), 2**62, padding=2**62)  # 2 * pad wrapped and passed the check


@pytest.mark.parametrize("pool", [F.max_pool1d, F.avg_pool1d])
def test_pool_stride_near_int64_max(pool):
    # one window (the first): PyTorch gives [[[5.]]] (max) and [[[3.]]] (avg) at stride 2**31 - 1 and fails
    # beyond ("Invalid computed output size: -1" at 2**63 - 1, its ceil_mode's stride - 1 wrapping);
    # the size formula in 128 bits gives the same single window at any stride
    x = ember.tensor([[[1.0, 5.0, 2.0, 3.0]]])
    expected = 5.0 if pool is F.max_pool1d else 3.0
    for stride in (2**31 - 1, 2**62, 2**63 - 1):
        out = pool(x, 2, stride=stride, ceil_mode=True)
        assert out.shape == (1, 1, 1) and out.item() == expected, stride


def test_a_reduction_that_does_not_hash_is_an_invalid_reduction():
    # PyTorch: ValueError "{} is not a valid value for reduction"
    x, t = ember.ones(2, 3), ember.zeros(2, dtype=ember.int64)
    with pytest.raises(ValueError, match="\\{\\} is not a valid value for reduction"):
        F.nll_loss(x, t, reduction={})
    with pytest.raises(ValueError, match="\\[1\\] is not a valid value for reduction"):
        F.binary_cross_entropy(ember.full([2], 0.5), ember.ones(2), reduction=[1])


def test_attention_with_no_embedding_averages_the_values():
    # PyTorch: q k^T is a matrix of empty sums (0), so the weights are uniform and the result is the mean
    # of the values over the key positions (here ones), not NaN from 0 * (1 / sqrt(0)) nor a division by zero
    q = ember.ones(2, 3, 0)
    v = ember.tensor(np.arange(2 * 5 * 4, dtype=np.float32).reshape(2, 5, 4))
    out = F.scaled_dot_product_attention(q, ember.ones(2, 5, 0), v)
    expected = np.broadcast_to(v.numpy().mean(axis=1, keepdims=True), (2, 3, 4))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    assert F.scaled_dot_product_attention(ember.ones(3, 0, dtype=ember.float64), ember.ones(3, 0, dtype=ember.float64),
                                          ember.ones(3, 0, dtype=ember.float64)).shape == (3, 0)


def test_one_hot_of_a_huge_view_with_num_classes_fails_at_once():
    # the (2**40, 10) int64 output cannot exist (PyTorch would read all 2**40 values first, then fail to
    # allocate); asked for first, it fails at once, naming the bytes
    huge = ember.zeros(1, dtype=ember.int64).expand(2**40)
    with pytest.raises(ember.OutOfMemoryError, match=r"one_hot: cannot allocate the output of shape "
                                                     r"\[1099511627776, 10\] \(87960930222080 bytes\)"):
        F.one_hot(huge, 10)
    np.testing.assert_array_equal(F.one_hot(ember.tensor([0, 2, 1]), 3).numpy(), np.eye(3, dtype=np.int64)[[0, 2, 1]])
