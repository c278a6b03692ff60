"""Creation ops beyond the generic op tests: dtype inference, varargs sizes, range lengths and
edge cases against NumPy, out=, device='meta', *_like layouts, ember.tensor from Python data, and
the errors bad input raises."""
import math

import numpy as np
import pytest

import ember


@pytest.fixture
def float64_default():
    old = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    yield
    ember.set_default_dtype(old)


def np_of(t):
    return np.array(t.numpy(), copy=True)


# ---- sizes and dtypes ----

@pytest.mark.parametrize("fn", [ember.zeros, ember.ones, ember.empty])
def test_size_forms_agree(fn):
    for t in (fn(2, 3), fn((2, 3)), fn([2, 3]), fn(ember.Size([2, 3])), fn(size=(2, 3))):
        assert t.shape == (2, 3) and t.dtype == ember.float32 and t.is_contiguous()
    assert fn(()).shape == () and fn([]).dim() == 0
    assert fn(5).shape == (5,) and fn(0).numel() == 0


def test_zeros_ones_values_and_dtypes():
    np.testing.assert_array_equal(np_of(ember.zeros(2, 3)), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(np_of(ember.ones(4, dtype=ember.int16)), np.ones(4, np.int16))
    np.testing.assert_array_equal(np_of(ember.ones(2, 2, dtype=ember.bool)), np.ones((2, 2), bool))
    np.testing.assert_array_equal(np_of(ember.zeros(3, dtype=ember.complex128)), np.zeros(3, np.complex128))
    big = ember.ones(1 << 20)  # the parallel fill path
    assert np_of(big).sum() == 1 << 20


def test_default_dtype_is_followed(float64_default):
    assert ember.zeros(2).dtype == ember.float64
    assert ember.full((2,), 1.5).dtype == ember.float64
    assert ember.full((2,), 1j).dtype == ember.complex128
    assert ember.arange(3.0).dtype == ember.float64
    assert ember.linspace(0, 1, 3).dtype == ember.float64
    assert ember.eye(2).dtype == ember.float64


@pytest.mark.parametrize("value,dtype,np_dtype", [
    (True, ember.bool, np.bool_), (3, ember.int64, np.int64), (2.5, ember.float32, np.float32),
    (1 + 2j, ember.complex64, np.complex64), (np.float64(0.5), ember.float32, np.float32),
])
def test_full_infers_dtype_from_value(value, dtype, np_dtype):
    t = ember.full((2, 3), value)
    assert t.dtype == dtype
    np.testing.assert_array_equal(np_of(t), np.full((2, 3), value, dtype=np_dtype))


def test_full_with_dtype_casts_and_refuses_overflow():
    np.testing.assert_array_equal(np_of(ember.full((3,), 2.7, dtype=ember.int32)), np.full(3, 2, np.int32))
    np.testing.assert_array_equal(np_of(ember.full((2,), 255, dtype=ember.uint8)), np.full(2, 255, np.uint8))
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8 without overflow"):
        ember.full((2,), 256, dtype=ember.uint8)
    with pytest.raises(RuntimeError, match="int8 without overflow"):
        ember.full((2,), -129, dtype=ember.int8)
    with pytest.raises(RuntimeError, match="int32 without overflow"):
        ember.full((2,), float("inf"), dtype=ember.int32)
    with pytest.raises(RuntimeError, match="int16 without overflow"):
        ember.full_like(ember.zeros(2, dtype=ember.int16), 40000)


def test_scalar_tensor():
    t = ember.scalar_tensor(3)
    assert t.shape == () and t.dtype == ember.float32 and t.item() == 3.0
    assert ember.scalar_tensor(2, dtype=ember.int64).item() == 2
    assert ember.scalar_tensor(1 - 1j).dtype == ember.complex64


# ---- arange ----

ARANGE_CASES = [
    (10,), (0, 10), (1, 11, 3), (0, 1, 0.1), (1, 2.5, 0.5), (-1, -10, -3), (0, 0.3, 0.1), (1, 1.3, 0.1),
    (10, 0, -1), (5.5,), (-2.5, 2.5, 0.7), (0, 0), (3, 3, -1), (0, 1e-3, 1e-4), (0, 7, 7), (0, 8, 7),
]


@pytest.mark.parametrize("args", ARANGE_CASES, ids=[str(a) for a in ARANGE_CASES])
def test_arange_against_numpy(args):
    t = ember.arange(*args)
    want = np.arange(*args)
    all_int = all(isinstance(a, int) for a in args)
    assert t.dtype == (ember.int64 if all_int else ember.float32)
    assert t.shape == want.shape, f"length {t.shape} != numpy's {want.shape}"
    np.testing.assert_allclose(np_of(t), want, rtol=1e-6, atol=1e-6)
    t64 = ember.arange(*args, dtype=ember.float64)
    np.testing.assert_allclose(np_of(t64), np.arange(*args, dtype=np.float64), rtol=1e-12, atol=1e-15)


def test_arange_forms():
    np.testing.assert_array_equal(np_of(ember.arange(end=4)), np.arange(4))
    np.testing.assert_array_equal(np_of(ember.arange(start=2, end=5)), np.arange(2, 5))
    np.testing.assert_array_equal(np_of(ember.arange(0, 10, step=4)), np.arange(0, 10, 4))
    assert len(ember.arange(0, 1, 0.1)) == 10
    assert ember.arange(ember.tensor(3)).tolist() == [0, 1, 2]
    # int64 ranges beyond 2**53 keep exact lengths and values
    big = 2 ** 62
    t = ember.arange(big, big + 5)
    assert t.tolist() == list(range(big, big + 5))
    assert ember.arange(0, 2 ** 61, 2 ** 58).shape == (8,)


def test_arange_int_dtypes_and_float_step_truncation():
    np.testing.assert_array_equal(np_of(ember.arange(0, 10, 3, dtype=ember.int8)), np.arange(0, 10, 3, dtype=np.int8))
    np.testing.assert_array_equal(np_of(ember.arange(5, dtype=ember.uint8)), np.arange(5, dtype=np.uint8))
    # A float step for an integer dtype truncates before stepping (PyTorch and NumPy agree).
    np.testing.assert_array_equal(np_of(ember.arange(0, 2.5, 0.5, dtype=ember.int64)),
                                  np.arange(0, 2.5, 0.5, dtype=np.int64))


def test_arange_errors():
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        ember.arange(0, 5, 0)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        ember.arange(0, 1, 0.0)
    with pytest.raises(RuntimeError, match="upper bound and larger bound inconsistent with step sign"):
        ember.arange(0, 5, -1)
    with pytest.raises(RuntimeError, match="upper bound and larger bound inconsistent with step sign"):
        ember.arange(5, 0)
    with pytest.raises(RuntimeError, match="unsupported range"):
        ember.arange(0, math.inf)
    with pytest.raises(RuntimeError, match="unsupported range"):
        ember.arange(math.nan)
    with pytest.raises(TypeError, match="missing required argument 'end'"):
        ember.arange()
    with pytest.raises(TypeError, match="complex"):
        ember.arange(0, 1j)
    with pytest.raises(TypeError, match='"arange" is not implemented for dtype bool'):
        ember.arange(3, dtype=ember.bool)
    with pytest.raises(TypeError, match="complex64"):
        ember.arange(3, dtype=ember.complex64)
    with pytest.raises(TypeError):
        ember.arange("3")


# ---- linspace / logspace ----

LINSPACE_CASES = [(0, 1, 5), (-3.0, 7.0, 11), (2, -2, 4), (0.1, 0.7, 7), (1.5, 9.0, 1), (0, 1, 0), (-1, 1, 2),
                  (1e-5, 1e5, 50), (3, 3, 4)]


@pytest.mark.parametrize("args", LINSPACE_CASES, ids=[str(a) for a in LINSPACE_CASES])
@pytest.mark.parametrize("dtype,np_dtype,tol", [(ember.float32, np.float32, 1e-6), (ember.float64, np.float64, 1e-13)])
def test_linspace_against_numpy(args, dtype, np_dtype, tol):
    t = ember.linspace(*args, dtype=dtype)
    want = np.linspace(*args, dtype=np.float64)
    assert t.dtype == dtype and t.shape == want.shape
    np.testing.assert_allclose(np_of(t), want, rtol=tol, atol=tol * 1e-3)
    if args[2] >= 1:  # both ends are exact: the second half is computed down from `end`
        assert np_of(t)[0] == np_dtype(args[0])
        assert np_of(t)[-1] == np_dtype(args[1] if args[2] > 1 else args[0])


def test_linspace_symmetric_from_both_ends():
    t = np_of(ember.linspace(-1.0, 1.0, 101, dtype=ember.float64))
    np.testing.assert_array_equal(t, -t[::-1])  # mirror images: each half is measured from its own end
    assert ember.linspace(0, 1, 3).dtype == ember.float32
    assert ember.linspace(0, 1 + 1j, 3).dtype == ember.complex64
    np.testing.assert_allclose(np_of(ember.linspace(0, 1 + 1j, 3)), np.linspace(0, 1 + 1j, 3), rtol=1e-6)


def test_linspace_int_dtypes():
    np.testing.assert_array_equal(np_of(ember.linspace(0, 100, 11, dtype=ember.int64)),
                                  np.linspace(0, 100, 11).astype(np.int64))
    # non-integer points truncate (toward zero, like a cast); these are all positive
    np.testing.assert_array_equal(np_of(ember.linspace(0, 10, 4, dtype=ember.int32)),
                                  np.trunc(np.linspace(0, 10, 4)).astype(np.int32))


def test_linspace_logspace_errors():
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        ember.linspace(0, 1, -1)
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        ember.logspace(0, 1, -2)
    with pytest.raises(TypeError, match="steps"):
        ember.linspace(0, 1, 2.5)
    with pytest.raises(TypeError, match="bool"):
        ember.linspace(0, 1, 3, dtype=ember.bool)
    with pytest.raises(TypeError, match="bool"):
        ember.logspace(0, 1, 3, dtype=ember.bool)


@pytest.mark.parametrize("args,kwargs", [((0, 2, 5), {}), ((-1, 1, 4), {"base": 2.0}), ((2, -2, 9), {"base": 3.0}),
                                         ((1.5, 1.5, 1), {}), ((0, 3, 0), {}), ((0, 1, 3), {"base": 0.5})])
def test_logspace_against_numpy(args, kwargs):
    t = ember.logspace(*args, **kwargs, dtype=ember.float64)
    np.testing.assert_allclose(np_of(t), np.logspace(*args, **kwargs), rtol=1e-13)
    t32 = ember.logspace(*args, **kwargs)
    assert t32.dtype == ember.float32
    np.testing.assert_allclose(np_of(t32), np.logspace(*args, **kwargs), rtol=2e-6)


def test_logspace_int_dtype():
    np.testing.assert_array_equal(np_of(ember.logspace(0, 3, 4, dtype=ember.int64)), [1, 10, 100, 1000])
    np.testing.assert_array_equal(np_of(ember.logspace(0, 6, 7, base=2, dtype=ember.int16)), 2 ** np.arange(7))


# ---- eye ----

@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,), (0, 3), (1, 1)])
def test_eye_against_numpy(args):
    t = ember.eye(*args)
    assert t.dtype == ember.float32
    np.testing.assert_array_equal(np_of(t), np.eye(*args, dtype=np.float32))
    np.testing.assert_array_equal(np_of(ember.eye(*args, dtype=ember.bool)), np.eye(*args, dtype=bool))


def test_eye_errors():
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0, got -1"):
        ember.eye(-1)
    with pytest.raises(RuntimeError, match="m must be greater or equal to 0, got -2"):
        ember.eye(2, -2)
    with pytest.raises(TypeError):
        ember.eye(2.0)


# ---- *_like and empty_strided ----

def test_like_ops_keep_dtype_device_and_layout():
    x = ember.full((2, 3), 7, dtype=ember.int16)
    for fn, fill in ((ember.zeros_like, 0), (ember.ones_like, 1), (lambda t, **k: ember.full_like(t, 5, **k), 5)):
        y = fn(x)
        assert y.dtype == ember.int16 and y.shape == (2, 3) and y.device == x.device
        np.testing.assert_array_equal(np_of(y), np.full((2, 3), fill, np.int16))
        assert fn(x, dtype=ember.float64).dtype == ember.float64
    assert ember.empty_like(x).shape == (2, 3) and ember.empty_like(x).dtype == ember.int16
    # a transposed (column-major) input gives a column-major result
    a = ember.from_numpy(np.zeros((3, 4), np.float32).T)
    assert a.stride() == (1, 4)
    for fn in (ember.empty_like, ember.zeros_like, ember.ones_like):
        assert fn(a).stride() == (1, 4) and fn(a).shape == (4, 3)
    assert ember.full_like(a, 2.0).stride() == (1, 4)
    np.testing.assert_array_equal(np_of(ember.full_like(a, 2.0)), np.full((4, 3), 2.0, np.float32))


def test_full_like_keeps_input_dtype_over_value_kind():
    t = ember.full_like(ember.zeros(3, dtype=ember.int64), 2.9)
    assert t.dtype == ember.int64 and t.tolist() == [2, 2, 2]


def test_empty_and_empty_strided():
    t = ember.empty(2, 3, dtype=ember.float64)
    assert t.shape == (2, 3) and t.dtype == ember.float64 and t.stride() == (3, 1)
    s = ember.empty_strided((2, 3), (1, 2))
    assert s.shape == (2, 3) and s.stride() == (1, 2) and s.dtype == ember.float32
    with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
        ember.empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError, match="negative dimension -2"):
        ember.empty_strided((-2, 3), (3, 1))


# ---- out= ----

def test_out_forms():
    out = ember.empty(0)
    r = ember.zeros(2, 3, out=out)
    assert r is out and out.shape == (2, 3)
    np.testing.assert_array_equal(np_of(out), np.zeros((2, 3), np.float32))
    ember.ones((4,), out=out)
    np.testing.assert_array_equal(np_of(out), np.ones(4, np.float32))
    ember.full((2, 2), 3.5, out=out)
    np.testing.assert_array_equal(np_of(out), np.full((2, 2), 3.5, np.float32))
    iout = ember.empty(0, dtype=ember.int32)
    ember.arange(2, 11, 3, out=iout)
    assert iout.dtype == ember.int32 and iout.tolist() == [2, 5, 8]
    ember.linspace(0, 1, 5, out=out)
    np.testing.assert_allclose(np_of(out), np.linspace(0, 1, 5), rtol=1e-6)
    ember.logspace(0, 2, 3, out=out)
    np.testing.assert_allclose(np_of(out), [1, 10, 100], rtol=1e-6)
    ember.eye(2, 3, out=out)
    np.testing.assert_array_equal(np_of(out), np.eye(2, 3))
    assert ember.empty(3, 1, out=out).shape == (3, 1)
    with pytest.raises(RuntimeError, match="does not match the dtype of the out= tensor"):
        ember.zeros(2, dtype=ember.float64, out=out)
    with pytest.raises(RuntimeError, match="negative dimension"):
        ember.zeros(-1, out=out)
    with pytest.raises(TypeError, match="bool"):
        ember.arange(3, out=ember.empty(0, dtype=ember.bool))


# ---- meta ----

def test_meta_device_for_every_creation_op():
    cases = [
        (ember.empty(2, 3, device="meta"), (2, 3), ember.float32),
        (ember.zeros(4, device="meta", dtype=ember.int8), (4,), ember.int8),
        (ember.ones((2, 1), device="meta"), (2, 1), ember.float32),
        (ember.full((3,), 7, device="meta"), (3,), ember.int64),
        (ember.empty_strided((2, 3), (1, 2), device="meta"), (2, 3), ember.float32),
        (ember.scalar_tensor(1.0, device="meta"), (), ember.float32),
        (ember.arange(10, device="meta"), (10,), ember.int64),
        (ember.arange(0, 1, 0.1, device="meta"), (10,), ember.float32),
        (ember.linspace(0, 1, 7, device="meta"), (7,), ember.float32),
        (ember.logspace(0, 1, 7, device=ember.device("meta")), (7,), ember.float32),
        (ember.eye(3, 2, device="meta"), (3, 2), ember.float32),
        (ember.zeros_like(ember.ones(2, 2), device="meta"), (2, 2), ember.float32),
        (ember.full_like(ember.empty(5, device="meta"), 2), (5,), ember.float32),
        (ember.empty_like(ember.empty(5, device="meta"), dtype=ember.int32), (5,), ember.int32),
        (ember.ones_like(ember.empty(2, device="meta"), device="cpu"), (2,), ember.float32),
    ]
    for i, (t, shape, dtype) in enumerate(cases):
        assert t.shape == shape and t.dtype == dtype, i
        assert t.is_meta == (i != len(cases) - 1), i
    # a meta-to-cpu *_like still fills (the data is new)
    assert cases[-1][0].tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        ember.arange(0, 1, 0, device="meta")
    with pytest.raises(RuntimeError, match="negative dimension"):
        ember.zeros(-3, device="meta")


# ---- bad input ----

def test_negative_sizes():
    for fn in (ember.empty, ember.zeros, ember.ones):
        with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1"):
            fn(2, -1)
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1"):
        ember.full((-1,), 2.0)


def test_sizes_that_overflow_are_refused():
    with pytest.raises(RuntimeError, match="overflow"):
        ember.zeros(2 ** 62, 4)
    with pytest.raises(RuntimeError, match="overflow"):
        ember.empty(2 ** 61, dtype=ember.float64)
    with pytest.raises(RuntimeError, match="overflow"):
        ember.empty_strided((2 ** 40, 2), (2 ** 40, 1))
    with pytest.raises(RuntimeError, match="invalid size, possible overflow"):
        ember.arange(1e20)
    assert ember.zeros(2 ** 62, 4, 0).numel() == 0  # a zero dim makes any product fine


def test_bad_argument_types():
    with pytest.raises(TypeError):
        ember.zeros(2.5)
    with pytest.raises(TypeError):
        ember.zeros("2")
    with pytest.raises(TypeError):
        ember.ones(2, dtype="float32")
    with pytest.raises(TypeError):
        ember.full((2,), "x")
    with pytest.raises(TypeError):
        ember.zeros_like([1, 2])
    with pytest.raises(TypeError, match="unexpected keyword"):
        ember.zeros(2, shape=3)
    with pytest.raises(RuntimeError, match="device string: gpu"):
        ember.zeros(2, device="gpu")
    with pytest.raises(AssertionError, match="not compiled with CUDA enabled"):  # PyTorch's CPU build's
        ember.zeros(2, device="cuda")


@pytest.mark.parametrize("make", [
    lambda: ember.zeros(2, requires_grad=True), lambda: ember.ones(2, requires_grad=True),
    lambda: ember.empty(2, requires_grad=True), lambda: ember.full((2,), 1.0, requires_grad=True),
    lambda: ember.arange(3.0, requires_grad=True), lambda: ember.linspace(0, 1, 3, requires_grad=True),
    lambda: ember.logspace(0, 1, 3, requires_grad=True), lambda: ember.eye(2, requires_grad=True),
    lambda: ember.zeros_like(ember.zeros(2), requires_grad=True),
    lambda: ember.tensor([1.0], requires_grad=True),
])
def test_requires_grad_true_makes_a_leaf(make):
    t = make()
    assert t.requires_grad and t.is_leaf and t.grad_fn is None


def test_requires_grad_true_needs_a_float_dtype():
    with pytest.raises(RuntimeError, match="floating point and complex"):
        ember.zeros(2, dtype=ember.int64, requires_grad=True)


def test_requires_grad_false_is_accepted():
    assert ember.zeros(2, requires_grad=False).shape == (2,)


# ---- ember.tensor from Python data ----

@pytest.mark.parametrize("data", [
    [1, 2, 3], [[1.5, 2], [3, 4]], [True, False], [[1 + 2j, 3]], 3.25, 7, True, [], [[]], [[[1], [2]], [[3], [4]]],
    [1, 2.5, True], [(1, 2), (3, 4)],
])
def test_tensor_from_nested_lists_matches_numpy(data):
    t = ember.tensor(data)
    want = np.array(data)
    expect_dtype = {"b": ember.bool, "i": ember.int64, "f": ember.float32, "c": ember.complex64}[want.dtype.kind]
    assert t.dtype == expect_dtype and t.shape == want.shape
    np.testing.assert_array_equal(np_of(t), want.astype(np_of(t).dtype))


def test_tensor_dtype_keyword_and_tensor_elements():
    t = ember.tensor([1, 2], dtype=ember.float64)
    assert t.dtype == ember.float64 and t.tolist() == [1.0, 2.0]
    s = ember.tensor([ember.tensor(1.5), ember.tensor(2.5)])
    assert s.tolist() == [1.5, 2.5]
    assert ember.tensor(np.arange(3, dtype=np.int16)).dtype == ember.int16


@pytest.mark.parametrize("data", [[[1, 2], [3]], [[1, 2], 3], [1, [2, 3]], [[[1, 2]], [[3]]]])
def test_tensor_from_ragged_lists_raises(data):
    with pytest.raises(ValueError):
        ember.tensor(data)


def test_tensor_from_bad_data_raises():
    with pytest.raises(TypeError, match="could not infer dtype"):
        ember.tensor(["a", "b"])
    with pytest.raises(TypeError):
        ember.tensor([None])
    with pytest.raises(ValueError, match="expected sequence of length 2"):
        ember.tensor([ember.zeros(2), ember.zeros(3)])  # tensors with dims are sequences of their rows


def test_frombuffer_shares_memory_like_numpy():
    import array
    buf = bytearray(np.arange(6, dtype=np.float32).tobytes())
    for kw in ({}, {"count": 2, "offset": 4}, {"offset": 8}, {"count": 6}):
        t = ember.frombuffer(buf, dtype=ember.float32, **kw)
        np.testing.assert_array_equal(t.numpy(), np.frombuffer(buf, dtype=np.float32, **kw))
    t = ember.frombuffer(buf, dtype=ember.float32, count=2, offset=4)
    t.fill_(7.0)  # writes reach the buffer
    np.testing.assert_array_equal(np.frombuffer(buf, dtype=np.float32), [0, 7, 7, 3, 4, 5])
    a = array.array("d", [1.5, 2.5])
    assert ember.frombuffer(a, dtype=ember.float64, requires_grad=True).requires_grad
    with pytest.raises(ValueError, match="multiple of element size"):
        ember.frombuffer(buf, dtype=ember.float32, offset=2)
    with pytest.raises(ValueError, match="must not be greater"):
        ember.frombuffer(buf, dtype=ember.float32, count=7)
    with pytest.raises(ValueError, match="no greater than buffer length"):
        ember.frombuffer(buf, dtype=ember.uint8, offset=len(buf))
    with pytest.raises(ValueError, match="must not be 0"):
        ember.frombuffer(bytearray(), dtype=ember.uint8)
    with pytest.raises(TypeError):
        ember.frombuffer(buf)  # dtype is required, as in PyTorch
