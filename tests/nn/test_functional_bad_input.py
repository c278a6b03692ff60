"""Bad input to ember.nn.functional gives a clear Python exception, as PyTorch does: every public
function with a non-tensor in each tensor position (TypeError naming the function and the
argument), every scalar argument replaced by hostile values (zero, negative, huge, NaN, wrong
types: a TypeError/ValueError/RuntimeError/IndexError/MemoryError that is none of Python's leaked
texts), and the cases PyTorch refuses that ember used to accept, with PyTorch's messages."""
import inspect
import json
import math
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from functional_valid_calls import NONE_ALLOWED, TENSOR_OR_NUMBER, TENSOR_OR_SEQUENCE, VALID_CALLS

# Python's own texts that mean a check is missing: the bad value reached an index, a division or
# an attribute lookup before anything named it.
LEAKED = ("list index out of range", "tuple index out of range", "modulo by zero", "division by zero",
          "has no attribute", "object is not iterable", "object is not subscriptable", "unsupported operand",
          "not supported between instances", "cannot convert float", "object cannot be interpreted")
CLEAR = (TypeError, ValueError, RuntimeError, IndexError, NotImplementedError, MemoryError)
# PyTorch raises AssertionError for some of its checks (embed_dim, num_heads, projection weights); ember too
PYTORCH_ASSERTS = {"multi_head_attention_forward"}


def test_every_public_function_has_a_valid_call():
    assert sorted(set(F.__all__) - set(VALID_CALLS)) == []
    assert sorted(set(VALID_CALLS) - set(F.__all__)) == []


@pytest.mark.parametrize("name", sorted(VALID_CALLS))
def test_valid_call_runs(name):
    args, kwargs = VALID_CALLS[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(F, name)(*args, **kwargs)


def _tensor_slots(name):
    """(slot, parameter name, None allowed) for each Tensor of the valid call: slot is a position
    or a keyword."""
    fn = getattr(F, name)
    params = inspect.signature(fn).parameters
    names = list(params)
    args, kwargs = VALID_CALLS[name]()
    slots = [(i, names[i]) for i, v in enumerate(args) if isinstance(v, ember.Tensor)]
    slots += [(k, k) for k, v in kwargs.items() if isinstance(v, ember.Tensor)]
    return [(slot, pname, params[pname].default is None or (name, pname) in NONE_ALLOWED)
            for slot, pname in slots]


def _call_with(name, slot, value):
    args, kwargs = VALID_CALLS[name]()
    args = list(args)
    if isinstance(slot, int):
        args[slot] = value
    else:
        kwargs[slot] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(F, name)(*args, **kwargs)


@pytest.mark.parametrize("name", sorted(VALID_CALLS))
def test_non_tensor_in_a_tensor_position_is_a_type_error_naming_it(name):
    problems = []
    for slot, pname, none_ok in _tensor_slots(name):
        for bad in (3, None, [1.0, 2.0], "s", 2.5):
            if bad is None and none_ok:
                continue
            if (name, pname) in TENSOR_OR_SEQUENCE and isinstance(bad, list):
                continue
            if (name, pname) in TENSOR_OR_NUMBER and isinstance(bad, (int, float)):
                continue
            try:
                _call_with(name, slot, bad)
                problems.append(f"{pname}={bad!r}: accepted")
            except TypeError as e:
                msg = str(e)
                if pname not in msg or any(text in msg for text in LEAKED):
                    problems.append(f"{pname}={bad!r}: unclear TypeError {msg!r}")
            except AssertionError as e:  # PyTorch's type for some of multi_head_attention_forward's checks
                if name not in PYTORCH_ASSERTS or pname not in str(e):
                    problems.append(f"{pname}={bad!r}: AssertionError: {e}")
            except Exception as e:  # any other type is the failure reported
                problems.append(f"{pname}={bad!r}: {type(e).__name__}: {e}")
    assert problems == [], f"{name}: {problems}"


def test_non_tensor_message_is_pytorchs():
    with pytest.raises(TypeError, match=r"^glu\(\): argument 'input' \(position 1\) must be Tensor, not int$"):
        F.glu(3)
    with pytest.raises(TypeError, match=r"^interpolate\(\): argument 'input' \(position 1\) must be Tensor, not list$"):
        F.interpolate([1.0, 2.0], size=3)
    with pytest.raises(TypeError, match=r"layer_norm\(\): argument 'weight' \(position 3\) must be Tensor or None, "
                                        r"not int"):
        F.layer_norm(ember.ones(2, 3), [3], 1)
    with pytest.raises(TypeError, match=r"dropout\(\): argument 'p' \(position 2\) must be Number, not list"):
        F.dropout(ember.ones(3), [0.5])


# ---- hostile scalar values, swept in a child process (a hang fails by its timeout) ------------
_HOSTILE = [0, -1, 2 ** 62, -2 ** 62, 10 ** 30, float("nan"), float("inf"), -0.5, [0, 0], [-1], [], [2 ** 62] * 2,
            "s", None]

_SWEEP = r"""
import inspect, json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[1])
import ember, ember.nn.functional as F
from functional_valid_calls import VALID_CALLS
hostile = json.loads(sys.argv[2], parse_constant=float)
for name in sorted(VALID_CALLS):
    fn = getattr(F, name)
    sig = inspect.signature(fn)
    names = list(sig.parameters)
    args, kwargs = VALID_CALLS[name]()
    slots = {}  # every scalar or int-sequence argument: given in the valid call, or a numeric default
    for i, v in enumerate(args):
        if isinstance(v, (int, float, list)) and not isinstance(v, bool):
            slots[names[i]] = i
    for pname, p in sig.parameters.items():
        if pname in slots:
            continue
        v = kwargs.get(pname, p.default)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            slots[pname] = pname
    for pname, slot in slots.items():
        for bad in hostile:
            args, kwargs = VALID_CALLS[name]()
            args = list(args)
            if isinstance(slot, int):
                args[slot] = bad
            else:
                kwargs[slot] = bad
            try:
                fn(*args, **kwargs)
                outcome = ["ok", ""]
            except Exception as e:
                outcome = [type(e).__name__, str(e)]
            print(json.dumps([name, pname, repr(bad)] + outcome), flush=True)
print(json.dumps(["done"]), flush=True)
"""


@pytest.fixture(scope="module")
def hostile_sweep():
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([sys.executable, "-c", _SWEEP, here, json.dumps(_HOSTILE)], capture_output=True, text=True,
                          timeout=900)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("[")]
    assert rows and rows[-1] == ["done"], f"the sweep stopped (exit {proc.returncode}): {proc.stderr[-2000:]}"
    return rows[:-1]


# PyTorch's own messages for these problems (they name the problem, not the function)
PYTORCH_PHRASES = ("Dimension out of range", "should be greater than zero", "overflow", "Overflow", "does not fit",
                   "out of memory", "cannot allocate", "Calculated padded input size", "Given input size",
                   "Given input with spatial size", "Input and output sizes", "Found an invalid max index",
                   "was expecting embedding dimension", "dropout probability", "Padding length",
                   "Lower bound should be", "out of bounds")


def _names_the_problem(name, pname, msg):
    stem = re.sub(r"(_?\d?d)?_?$", "", name)  # max_pool2d -> max_pool, relu_ -> relu
    return name in msg or stem in msg or pname in msg or any(p in msg for p in PYTORCH_PHRASES)


def test_hostile_scalars_raise_clear_errors(hostile_sweep):
    allowed = {cls.__name__ for cls in CLEAR}
    problems = []
    for name, pname, bad, kind, msg in hostile_sweep:
        if kind == "ok":
            continue
        if kind == "AssertionError" and name in PYTORCH_ASSERTS:
            continue
        if kind not in allowed or not msg or any(text in msg for text in LEAKED):
            problems.append(f"{name}({pname}={bad}): {kind}: {msg[:160]}")
        elif not _names_the_problem(name, pname, msg):
            problems.append(f"{name}({pname}={bad}): names neither function nor argument: {msg[:160]}")
    assert problems == []


def test_hostile_sweep_covers_every_function(hostile_sweep):
    swept = {row[0] for row in hostile_sweep}
    # these take no scalar argument at all
    scalar_free = {name for name in VALID_CALLS if name not in swept}
    for name in scalar_free:
        params = inspect.signature(getattr(F, name)).parameters.values()
        assert not any(isinstance(p.default, (int, float)) and not isinstance(p.default, bool) for p in params), name


# ---- what PyTorch refuses, with its messages ---------------------------------------------------
def _pooled():
    # each 2x2 window's maximum is its bottom-right entry: indices 5, 7, 13, 15
    v, i = F.max_pool2d(ember.arange(16.0).reshape(1, 1, 4, 4), 2, return_indices=True)
    return v, i


def test_max_unpool_checks_indices_and_output_size():
    v, i = _pooled()
    with pytest.raises(RuntimeError, match=r"Expected shape of indices to be same as that of the input tensor "
                                           r"\(\[1, 1, 2, 2\]\) but got indices tensor with shape: \[1, 1, 2, 1\]"):
        F.max_unpool2d(v, i[..., :1], 2)
    with pytest.raises(ValueError, match=r'invalid output_size "\(9, 9\)" \(dim 0 must be between 2 and 6\)'):
        F.max_unpool2d(v, i, 2, output_size=(9, 9))
    with pytest.raises(ValueError, match="output_size should be a sequence containing 2 or 4 elements, but it has a "
                                         "length of '1'"):
        F.max_unpool2d(v, i, 2, output_size=(3,))
    with pytest.raises(RuntimeError, match=r"Found an invalid max index: 13 \(output volumes are of size 3x3"):
        F.max_unpool2d(v, i, 2, output_size=(1, 1, 3, 3))
    with pytest.raises(RuntimeError, match=r"Found an invalid max index: -1 "):
        F.max_unpool2d(v, ember.full([1, 1, 2, 2], -1, dtype=ember.int64), 2)
    with pytest.raises(RuntimeError, match="elements in indices should be type int64 but got"):
        F.max_unpool2d(v, i.float(), 2)
    with pytest.raises(RuntimeError, match="Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor "
                                           "with 2 dimensions"):
        F.max_unpool2d(v[0, 0], i[0, 0], 2)
    with pytest.raises(RuntimeError, match="Input to max_unpooling3d should be a 4d or 5d Tensor"):
        F.max_unpool3d(ember.randn(1, 2, 2), ember.zeros(1, 2, 2, dtype=ember.int64), 2)
    with pytest.raises(ValueError, match=r'invalid output_size "\(5, 5, 5\)" \(dim 0 must be between 0 and 4\)'):
        F.max_unpool3d(ember.randn(1, 1, 1, 1, 1), ember.zeros(1, 1, 1, 1, 1, dtype=ember.int64), 2,
                       output_size=(5, 5, 5))
    # within a stride of the default size: accepted, the values where the indices say
    out = F.max_unpool2d(v, i, 2, output_size=(1, 1, 5, 5))
    assert list(out.shape) == [1, 1, 5, 5]
    flat_idx = i.reshape(-1).tolist()
    np.testing.assert_array_equal(out.reshape(-1).numpy()[flat_idx], v.reshape(-1).numpy())


def test_rms_and_layer_norm_check_the_normalized_shape():
    with pytest.raises(ValueError, match="Input tensor must have at least 2 dimensions, but got 1"):
        F.rms_norm(ember.randn(3), [2, 3])
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with shape \[\*4\], but got "
                                           r"input of size\[3\]"):
        F.rms_norm(ember.randn(3), [4])
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[3, 4\], expected input with shape \[\*, 3, 4\], "
                                           r"but got input of size\[2, 3, 5\]"):
        F.layer_norm(ember.randn(2, 3, 5), [3, 4])
    with pytest.raises(RuntimeError, match=r"Expected weight to be of same shape as normalized_shape, but got weight "
                                           r"of shape \[1, 4\] and normalized_shape = \[4\]"):
        F.rms_norm(ember.randn(2, 3, 4), [4], ember.randn(1, 4))
    with pytest.raises(RuntimeError, match=r"Expected bias to be of same shape as normalized_shape"):
        F.layer_norm(ember.randn(2, 3, 4), [4], None, ember.randn(1, 4))


@pytest.mark.parametrize("training", [False, True])
def test_rrelu_refuses_lower_above_upper(training):
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        F.rrelu(ember.randn(3), 0.5, 0.1, training=training)
    x = ember.tensor([-2.0, 1.0])
    np.testing.assert_allclose(F.rrelu(x, 0.25, 0.25, training=training).numpy(), [-0.5, 1.0])  # lower == upper


def test_triplet_margin_loss_refuses_different_ranks():
    with pytest.raises(RuntimeError, match="The anchor, positive, and negative tensors are expected to have the same "
                                           "number of dimensions, but got: anchor 2D, positive 1D, and negative 2D "
                                           "inputs"):
        F.triplet_margin_loss(ember.randn(2, 3), ember.randn(3), ember.randn(2, 3))


@pytest.mark.parametrize("dtypes,text", [((ember.int64, ember.int64), "Integral"),
                                         ((ember.float32, ember.int64), "Integral"),
                                         ((ember.int32, ember.float32), "Integral"),
                                         ((ember.float32, ember.bool), "Integral"),
                                         ((ember.complex64, ember.complex64), "Complex")])
def test_kl_div_refuses_integer_and_complex(dtypes, text):
    a, b = (ember.ones(2, dtype=d) for d in dtypes)
    with pytest.raises(RuntimeError, match=f"kl_div: {text} inputs not supported."):
        F.kl_div(a, b)


def test_zero_divisors_and_bad_dims_are_named():
    x = ember.randn(1, 4, 2, 2)
    cases = [
        (lambda: F.group_norm(ember.randn(2, 4, 3), 0), RuntimeError, "num_groups must be positive"),
        (lambda: F.pixel_shuffle(x, 0), RuntimeError, "pixel_shuffle expects a positive upscale_factor, but got 0"),
        (lambda: F.pixel_unshuffle(x, 0), RuntimeError, "pixel_unshuffle expects a positive downscale_factor"),
        (lambda: F.lp_pool2d(x, 0, 2), ValueError, "norm_type must be non-zero"),
        (lambda: F.local_response_norm(x, 0), RuntimeError, "size must be positive"),
        (lambda: F.glu(ember.randn(4), 5), IndexError,
         r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 5\)"),
        (lambda: F.glu(ember.randn(4), 2 ** 62), IndexError, "Dimension out of range"),
        (lambda: F.unfold(x, 0), RuntimeError, "kernel size should be greater than zero, but got kernel_height: 0 "
                                               "kernel_width: 0"),
        (lambda: F.unfold(x, 2, stride=0), RuntimeError, "stride should be greater than zero"),
        (lambda: F.unfold(x, 2, dilation=0), RuntimeError, "dilation should be greater than zero"),
        (lambda: F.unfold(x, 2, padding=-1), RuntimeError, "padding should be non-negative"),
        (lambda: F.fold(ember.randn(1, 4, 4), (3, 3), 2, stride=0), RuntimeError, "stride should be greater than zero"),
        (lambda: F.multi_head_attention_forward(*_mha_args(num_heads=0)), RuntimeError, "num_heads must be positive"),
        (lambda: F.interpolate(ember.randn(1, 1, 2), scale_factor=0), RuntimeError,
         "Input and output sizes should be greater than 0"),
        (lambda: F.interpolate(ember.randn(1, 1, 2), size=-1), RuntimeError,
         "Input and output sizes should be greater than 0"),
        (lambda: F.interpolate(ember.randn(1, 1, 2), scale_factor=math.nan), RuntimeError,
         "value cannot be converted to type int64_t without overflow"),
        (lambda: F.pad(ember.randn(1, 2, 3), (1.5, 1)), TypeError,
         "pad\\(\\): argument 'pad' .* must be tuple of ints"),
        (lambda: F.gaussian_nll_loss(ember.randn(3), ember.randn(3), "v"), TypeError, "argument 'var'"),
        (lambda: F.gaussian_nll_loss(ember.randn(3), ember.randn(3), -1.0), ValueError, "var has negative entry"),
        (lambda: F.multilabel_margin_loss(ember.randn(2, 0), ember.zeros(2, 0, dtype=ember.int64)), RuntimeError,
         r"Expected non-empty vector or matrix with optional 0-dim batch size, but got: \[2, 0\]"),
        (lambda: F.multilabel_margin_loss(ember.randn(2, 3), ember.zeros(3, 2, dtype=ember.int64)), RuntimeError,
         r"inconsistent target size: \[3, 2\] for input of size: \[2, 3\]"),
        (lambda: F.multilabel_margin_loss(ember.randn(3), ember.tensor([0, 5, -1])), RuntimeError,
         "argument #2 'target' is out of range"),
        (lambda: F.embedding_bag(ember.tensor([0, 1]), ember.randn(3, 2), ember.tensor([0, 3])), RuntimeError,
         "offsets must be non-decreasing and at most the input's length"),
        (lambda: F.ctc_loss(ember.randn(4, 3).log_softmax(1), ember.tensor([1]), "a", [1]), TypeError,
         "argument 'input_lengths'"),
    ]
    for call, exc, pattern in cases:
        with pytest.raises(exc, match=pattern):
            call()


def _mha_args(num_heads=2):
    e = 4
    return (ember.randn(3, 2, e), ember.randn(3, 2, e), ember.randn(3, 2, e), e, num_heads, ember.randn(3 * e, e),
            ember.randn(3 * e), None, None, False, 0.0, ember.randn(e, e), ember.randn(e))


def test_gaussian_nll_loss_takes_a_float_variance():
    x, y = ember.randn(3, 4, dtype=ember.float64), ember.randn(3, 4, dtype=ember.float64)
    want = 0.5 * (np.log(0.5) + (x.numpy() - y.numpy()) ** 2 / 0.5)
    np.testing.assert_allclose(F.gaussian_nll_loss(x, y, 0.5, reduction="none").numpy(), want, rtol=1e-12)


# ---- NaN and zero sizes, as PyTorch ------------------------------------------------------------
def test_grid_sample_with_nan_coordinates_gives_nan():
    x = ember.randn(1, 2, 3, 3)
    grid = ember.tensor([[[[math.nan, 0.0], [0.0, 0.0]]]])  # (1, 1, 2, 2): one NaN point, one centre point
    out = F.grid_sample(x, grid, align_corners=True)
    assert math.isnan(out[0, 0, 0, 0].item()) and math.isnan(out[0, 1, 0, 0].item())
    np.testing.assert_allclose(out[0, :, 0, 1].numpy(), x[0, :, 1, 1].numpy(), rtol=1e-6)
    # nearest: a NaN point is outside every pixel, so zeros padding gives 0 (PyTorch's result)
    near = F.grid_sample(x, grid, mode="nearest", align_corners=True)
    assert near[0, :, 0, 0].tolist() == [0.0, 0.0]
    assert math.isnan(F.grid_sample(x, grid, mode="bicubic", align_corners=True)[0, 0, 0, 0].item())
    vol = F.grid_sample(ember.randn(1, 1, 2, 2, 2), ember.full([1, 1, 1, 1, 3], math.nan))
    assert math.isnan(vol.item())


def test_unfold_with_no_samples():
    out = F.unfold(ember.randn(0, 2, 3, 3), 2)
    assert list(out.shape) == [0, 8, 4]  # C * kh * kw = 8 rows, (3 - 2 + 1)^2 = 4 blocks
    with pytest.raises(RuntimeError, match=r"possibly 0 batch size and other non-zero dimensions for input, but got: "
                                           r"\[1, 0, 3, 3\]"):
        F.unfold(ember.randn(1, 0, 3, 3), 2)
    assert list(F.fold(ember.randn(0, 4, 4), (3, 3), 2).shape) == [0, 1, 3, 3]


@pytest.mark.parametrize("shape", [(0, 4, 3), (2, 4, 0), (2, 0, 3)])
def test_group_norm_of_zero_size_input(shape):
    x = ember.randn(*shape, requires_grad=True)
    out = F.group_norm(x, 2, ember.ones(shape[1]), ember.zeros(shape[1]))
    assert list(out.shape) == list(shape)
    out.sum().backward()
    assert list(x.grad.shape) == list(shape)


# ---- silent acceptance found by comparing every function's mutated calls with PyTorch's -------
def _r(*shape, dtype=ember.float32):
    return ember.rand(*shape, dtype=dtype) * 0.8 + 0.1


REFUSED = [  # (call, exception, PyTorch's message or ours naming the argument)
    (lambda: F.linear(_r(2, 3), _r(4, 3), ember.ones(4, dtype=ember.int64)), RuntimeError,
     "self and mat2 must have the same dtype"),
    (lambda: F.batch_norm(_r(4, 3), _r(3, dtype=ember.float64), _r(3)), RuntimeError, "running_mean"),
    (lambda: F.instance_norm(_r(2, 3, 4), None, None, _r(1, 3)), RuntimeError, "weight should be a 1-D tensor of 3"),
    (lambda: F.multi_head_attention_forward(*_mha_args()[:7], _r(1, 1, 1, 4), _r(1, 1, 1, 4), *_mha_args()[9:]),
     RuntimeError, "bias_k must be of shape \\(1, 1, 4\\)"),
    (lambda: F.bilinear(_r(1, 2, 3), _r(2, 5), _r(4, 3, 5)), RuntimeError,
     "bilinear\\(\\): input dimensions do not match: got 3 and 2"),
    (lambda: F.bilinear(_r(2, 3), _r(2, 5), _r(4, 3, 5), _r(1)), RuntimeError,
     "bilinear\\(\\): bias size does not match weight size: got 1 but expected 4"),
    (lambda: F.bilinear(_r(2, 3), _r(2, 5), _r(4, 3, 5), _r(4, dtype=ember.float64)), RuntimeError, "bias"),
    (lambda: F.glu(ember.ones(4, dtype=ember.int64)), NotImplementedError, "glu"),
    (lambda: F.prelu(_r(2, 3), _r(3, dtype=ember.float64)), RuntimeError, "prelu: Type promoting not supported"),
    (lambda: F.dropout(ember.ones(4, dtype=ember.int64), 0.5, True), RuntimeError,
     "result type Float can't be cast to the desired output type"),
    (lambda: F.feature_alpha_dropout(_r(1), 0.5, True), RuntimeError,
     "Feature dropout requires at least 2 dimensions in the input"),
    (lambda: F.mse_loss(_r(3, dtype=ember.complex64), _r(3, dtype=ember.complex64)), NotImplementedError, "mse_loss"),
    (lambda: F.nll_loss(_r(3, 4), ember.tensor([0, 1, 2]), _r(4, dtype=ember.float64)), RuntimeError, "weight"),
    (lambda: F.cross_entropy(_r(3, 4, dtype=ember.float64), ember.tensor([0, 1, 2]), _r(4)), RuntimeError, "weight"),
    (lambda: F.binary_cross_entropy(ember.tensor([0.5, math.nan]), _r(2)), RuntimeError,
     "all elements of input should be between 0 and 1"),
    (lambda: F.binary_cross_entropy(_r(3), ember.tensor([0.5, 2.0, 0.0])), RuntimeError,
     "all elements of target should be between 0 and 1"),
    (lambda: F.binary_cross_entropy(_r(3), _r(3, dtype=ember.float64)), RuntimeError,
     "Found dtype Double but expected Float"),
    (lambda: F.binary_cross_entropy(_r(3, 4), _r(3, 4), _r(1, 3, 4)), RuntimeError,
     "output with shape \\[3, 4\\] doesn't match the broadcast shape \\[1, 3, 4\\]"),
    (lambda: F.binary_cross_entropy_with_logits(_r(3, 4), _r(3, 4), pos_weight=_r(2, 3, 4)), RuntimeError,
     "doesn't match the broadcast shape"),
    (lambda: F.binary_cross_entropy_with_logits(_r(3), ember.ones(3, dtype=ember.int64)), RuntimeError, "target"),
    (lambda: F.soft_margin_loss(_r(3, 4), _r(1, 3, 4)), RuntimeError, "doesn't match the broadcast shape"),
    (lambda: F.cosine_similarity(_r(3, 4, dtype=ember.complex64), _r(3, 4)), RuntimeError,
     "expected common dtype to be floating point"),
    (lambda: F.conv2d(_r(1, 2, 4, 4), _r(3, 2, 2, 2), _r(3, dtype=ember.float64)), RuntimeError, "bias"),
    (lambda: F.conv2d(_r(1, 2, 4, 4), _r(3, 2, 2, 2, dtype=ember.float64)), RuntimeError, "weight"),
    (lambda: F.conv2d(_r(1, 2, 4, 4), _r(3, 2, 2, 0)), RuntimeError, "kernel size should be greater than zero"),
    (lambda: F.conv_transpose2d(_r(1, 2, 5, 0), _r(2, 3, 2, 2)), RuntimeError,
     "Only zero batch or zero channel inputs are supported"),
    (lambda: F.batch_norm(_r(4, 3), _r(1, 3), _r(3)), RuntimeError, "running_mean should be a 1-D tensor of 3"),
    (lambda: F.batch_norm(_r(4, 3), _r(3), _r(3), _r(3, dtype=ember.float64)), RuntimeError, "weight"),
    (lambda: F.instance_norm(_r(2, 3, 4), _r(1, 3), _r(3)), RuntimeError, "running_mean should be a 1-D tensor"),
    (lambda: F.instance_norm(_r(2, 3, 4), None, None, _r(3, dtype=ember.float64)), RuntimeError, "weight"),
    (lambda: F.instance_norm(_r(2, 3, 4), use_input_stats=False), RuntimeError,
     "Expected running_mean and running_var to be defined when use_input_stats is false"),
    (lambda: F.layer_norm(_r(2, 3), [3], _r(3, dtype=ember.float64)), RuntimeError, "weight"),
    (lambda: F.group_norm(_r(2, 4, 3), 2, _r(4, dtype=ember.float64)), RuntimeError, "weight"),
    (lambda: F.group_norm(_r(2, 4, 3), 2, _r(3)), RuntimeError,
     "Expected weight to be a vector of size equal to the number of channels in input"),
    (lambda: F.embedding(ember.tensor([True, False]), _r(3, 2)), RuntimeError, "argument #1 'indices'"),
    (lambda: F.scaled_dot_product_attention(_r(2, 3, 4), _r(2, 5, 4), _r(2, 5, 6),
                                            attn_mask=ember.ones(3, 5, dtype=ember.int64)), RuntimeError,
     "Expected attn_mask dtype to be bool or float or to match query dtype"),
    (lambda: F.multilabel_margin_loss(_r(3), ember.tensor([0, -1, -5])), RuntimeError,
     "argument #2 'target' is out of range"),
    (lambda: F.multilabel_margin_loss(_r(3), ember.tensor([0, -1, 3])), RuntimeError,
     "argument #2 'target' is out of range"),
    (lambda: F.multi_margin_loss(_r(3, 4), ember.tensor([0.0, 1.0, 2.0])), RuntimeError, "expected scalar type Long"),
    (lambda: F.multi_margin_loss(_r(3, 4), ember.tensor([[0, 1, 2]])), RuntimeError,
     "target tensor should be 1-D with size equal to the number of input samples"),
    (lambda: F.multi_margin_loss(_r(3, 4), ember.tensor([0, 1, 2]), weight=_r(5)), RuntimeError,
     "inconsistent weight size, expected 4 but got \\[5\\]"),
    (lambda: F.multi_margin_loss(_r(3, 4), ember.tensor([0, 1, 2]), weight=_r(1, 4)), ValueError,
     "weight must be one-dimensional"),
    (lambda: F.multi_margin_loss(ember.ones(3, 4, dtype=ember.int64), ember.tensor([0, 1, 2])), NotImplementedError,
     "multi_margin_loss"),
    (lambda: F.cosine_embedding_loss(_r(3, 4), _r(3, 4), ember.ones(3, 1)), RuntimeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    (lambda: F.cosine_embedding_loss(_r(4), _r(4), ember.ones(3)), RuntimeError,
     "1D target tensor expects 2D input tensors, but found inputs with sizes \\[4\\] and \\[4\\]"),
    (lambda: F.gaussian_nll_loss(_r(3, 4), _r(3, 4), _r(1, 3, 4)), ValueError, "var is of incorrect size"),
    (lambda: F.gaussian_nll_loss(_r(3, 4), _r(3, 4), _r(3, 4), reduction="bad"), ValueError, "bad is not valid"),
    (lambda: F.ctc_loss(_r(6, 2, 4).log_softmax(2), ember.tensor([1, 2, 3]), [6, 5], [2, 2]), RuntimeError,
     "Expected tensor to have size 4 at dimension 0, but got size 3 for argument #2 'targets'"),
    (lambda: F.ctc_loss(_r(6, 2, 4).log_softmax(2), ember.tensor([[1, 2]]), [6, 5], [2, 2]), RuntimeError,
     "Expected tensor to have size 2 at dimension 0, but got size 1 for argument #2 'targets'"),
    (lambda: F.ctc_loss(_r(6, 2, 4).log_softmax(2), ember.tensor([[1, 2], [1, 2]]), [6, 5], [2, 2], blank=4),
     RuntimeError, "blank must be in label range"),
    (lambda: F.ctc_loss(_r(6, 2, 4).log_softmax(2), ember.tensor([[1, 2], [1, 2]]), [6, 5], [2, -1]), RuntimeError,
     "Expected target_lengths to have value at least 0, but got value -1"),
    (lambda: F.ctc_loss(_r(6, 2, 4).log_softmax(2), ember.tensor([[1, 2], [1, 2]]), ember.tensor([True, True]),
                        [2, 2]), RuntimeError, "input_lengths must be integral"),
    (lambda: F.embedding_bag(ember.tensor([0, 1, 2]), _r(3, 2), ember.tensor([0, 1]), mode="sum",
                             per_sample_weights=_r(2)), ValueError,
     "If per_sample_weights \\(\\(2,\\)\\) is not None, then it must have the same shape as the input \\(\\(3,\\)\\)"),
    (lambda: F.embedding_bag(ember.tensor([0, 1, 2]), _r(3, 2), ember.tensor([0, 1]), mode="sum",
                             per_sample_weights=_r(3, dtype=ember.float64)), RuntimeError, "per_sample_weights"),
]


@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_refused_as_pytorch_refuses(case):
    call, exc, pattern = REFUSED[case]
    with pytest.raises(exc, match=pattern):
        call()


def test_what_pytorch_accepts_stays_accepted():
    x = _r(2, 3).to(ember.bfloat16)
    assert F.layer_norm(x, [3], _r(3)).dtype == ember.bfloat16  # float32 parameters for a bfloat16 input
    assert list(F.batch_norm(_r(4, 3), _r(3), _r(3), _r(1, 3), _r(1, 3)).shape) == [4, 3]  # (1, C) weight and bias
    assert F.rms_norm(_r(2, 3, dtype=ember.float64), [3], _r(3)).dtype == ember.float64  # rms_norm promotes
    sim = F.cosine_similarity(ember.tensor([[1, 0]]), ember.tensor([[1.0, 1.0]]))  # integers compared as floats
    assert sim.item() == pytest.approx(1 / math.sqrt(2))
    loss = F.binary_cross_entropy(ember.tensor([0.5]), ember.tensor([1.0]), weight=ember.tensor([2.0],
                                                                                              dtype=ember.float64))
    assert loss.item() == pytest.approx(2 * math.log(2), rel=1e-6)  # a weight of another dtype
    lengths = ember.tensor([6, 5])
    got = F.ctc_loss(_r(6, 2, 4).log_softmax(2), ember.tensor([[1.0, 2.0], [3.0, 3.0]]), lengths, ember.tensor([2, 2]))
    assert math.isfinite(got.item())  # float class indices, as PyTorch reads them


def test_multi_head_attention_forward_takes_pytorchs_arguments():
    e, heads = 4, 2
    q, k, v = ember.randn(3, 2, e), ember.randn(5, 2, e), ember.randn(5, 2, e)
    w_in, b_in, w_out, b_out = ember.randn(3 * e, e), ember.randn(3 * e), ember.randn(e, e), ember.randn(e)
    out, weights = F.multi_head_attention_forward(q, k, v, e, heads, w_in, b_in, None, None, False, 0.0, w_out, b_out)
    # the same computation spelled out: per-head softmax(q k^T / sqrt(d)) v, heads averaged for the weights
    wq, wk, wv = w_in.chunk(3, 0)
    bq, bk, bv = b_in.chunk(3, 0)
    qp, kp, vp = (F.linear(t, w, b).reshape(t.shape[0], 2, heads, 2).permute(1, 2, 0, 3)
                  for t, w, b in ((q, wq, bq), (k, wk, bk), (v, wv, bv)))
    att = ember.softmax(ember.matmul(qp, kp.transpose(-2, -1)) / math.sqrt(2), -1)
    want = F.linear(ember.matmul(att, vp).permute(2, 0, 1, 3).reshape(3, 2, e), w_out, b_out)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weights.detach().numpy(), att.mean(1).detach().numpy(), rtol=1e-5, atol=1e-6)
    # static keys and values replace the projected ones
    sk, sv = ember.randn(2 * heads, 6, 2), ember.randn(2 * heads, 6, 2)
    out_s, w_s = F.multi_head_attention_forward(q, k, v, e, heads, w_in, b_in, None, None, False, 0.0, w_out, b_out,
                                                static_k=sk, static_v=sv)
    att_s = ember.softmax(ember.matmul(qp, sk.reshape(2, heads, 6, 2).transpose(-2, -1)) / math.sqrt(2), -1)
    np.testing.assert_allclose(w_s.detach().numpy(), att_s.mean(1).detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 5, but got 4"):
        F.multi_head_attention_forward(q, k, v, 5, heads, w_in, b_in, None, None, False, 0.0, w_out, b_out)
    with pytest.raises(AssertionError, match="use_separate_proj_weight is True but q_proj_weight is None"):
        F.multi_head_attention_forward(q, k, v, e, heads, None, b_in, None, None, False, 0.0, w_out, b_out,
                                       use_separate_proj_weight=True)
    sep = F.multi_head_attention_forward(q, k, v, e, heads, None, b_in, None, None, False, 0.0, w_out, b_out,
                                         use_separate_proj_weight=True, q_proj_weight=wq, k_proj_weight=wk,
                                         v_proj_weight=wv)[0]
    np.testing.assert_allclose(sep.detach().numpy(), out.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("call,flag", [
    (lambda v: F.kl_div(_r(3), _r(3), log_target=v), "log_target"),
    (lambda v: F.instance_norm(_r(2, 3, 4), _r(3), _r(3), use_input_stats=v), "use_input_stats"),
    (lambda v: F.embedding(ember.tensor([0, 1]), _r(3, 2), sparse=v), "sparse"),
    (lambda v: F.triplet_margin_loss(_r(3, 4), _r(3, 4), _r(3, 4), swap=v), "swap"),
    (lambda v: F.poisson_nll_loss(_r(3), _r(3), log_input=v), "log_input"),
    (lambda v: F.poisson_nll_loss(_r(3), _r(3), full=v), "full"),
    (lambda v: F.lp_pool2d(_r(1, 2, 4, 4), 2.0, 2, ceil_mode=v), "ceil_mode"),
    (lambda v: F.embedding_bag(ember.tensor([0, 1]), _r(3, 2), ember.tensor([0]), include_last_offset=v),
     "include_last_offset"),
    (lambda v: F.ctc_loss(_r(6, 2, 4).log_softmax(2), ember.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2],
                          zero_infinity=v), "zero_infinity"),
])
def test_flags_must_be_bool(call, flag):
    for bad in ("x", 2, None, 0.5):
        with pytest.raises(TypeError, match=f"argument '{flag}' \\(position \\d+\\) must be bool, not "
                                            f"{type(bad).__name__}"):
            call(bad)
    call(False)
    call(np.bool_(True))
