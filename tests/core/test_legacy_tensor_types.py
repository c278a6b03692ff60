"""ember.FloatTensor and its kin, ember.Tensor(...)'s legacy forms and Tensor.type(), against
PyTorch 2.13's behaviour and messages (written out here; NumPy gives the conversions' values)."""
import numpy as np
import pytest

import ember

TYPES = [("DoubleTensor", ember.float64, np.float64), ("FloatTensor", ember.float32, np.float32),
         ("HalfTensor", ember.float16, np.float16), ("LongTensor", ember.int64, np.int64),
         ("IntTensor", ember.int32, np.int32), ("ShortTensor", ember.int16, np.int16),
         ("CharTensor", ember.int8, np.int8), ("ByteTensor", ember.uint8, np.uint8), ("BoolTensor", ember.bool, bool)]


@pytest.mark.parametrize("name,dtype,np_dtype", TYPES)
def test_typed_constructors_from_sizes_and_data(name, dtype, np_dtype):
    cls = getattr(ember, name)
    t = cls(2, 3)
    assert type(t) is ember.Tensor and t.dtype == dtype and t.shape == (2, 3)
    assert cls(ember.Size([4])).shape == (4,) and cls().shape == (0,) and cls(0).shape == (0,)
    data = [0.0, 1.0, 2.0, 100.0]
    np.testing.assert_array_equal(cls(data).numpy(), np.array(data).astype(np_dtype))
    np.testing.assert_array_equal(cls(np.arange(3)).numpy(), np.arange(3).astype(np_dtype))
    assert isinstance(ember.zeros(2, dtype=dtype), cls)
    assert repr(cls) == f"<class 'ember.{name}'>" and cls.dtype == dtype and cls.__module__ == "ember"


def test_conversions_as_pytorch():
    assert ember.LongTensor([1.5, 2.7, -1.5]).tolist() == [1, 2, -1]  # truncation
    assert ember.ByteTensor([-1]).tolist() == [255]  # wraps, as PyTorch's legacy constructor
    assert ember.BoolTensor([0, 2]).tolist() == [False, True]
    assert ember.BFloat16Tensor([1]).dtype == ember.bfloat16
    assert ember.FloatTensor([[1], [2]]).shape == (2, 1)


def test_isinstance_checks():
    assert isinstance(ember.zeros(2), ember.FloatTensor)
    assert not isinstance(ember.zeros(2), ember.DoubleTensor)
    assert isinstance(ember.nn.Parameter(ember.zeros(2)), ember.FloatTensor)
    assert not isinstance(ember.zeros(2, device="meta"), ember.FloatTensor)  # a cpu type
    assert not isinstance([1.0], ember.FloatTensor)
    assert isinstance(ember.FloatTensor(2), ember.Tensor)
    assert not issubclass(ember.FloatTensor, ember.Tensor) and not issubclass(ember.Tensor, ember.FloatTensor)


def test_from_a_tensor_aliases_it():
    a = ember.arange(3.0)
    b = ember.FloatTensor(a)
    assert b is not a and b.data_ptr() == a.data_ptr()
    b[0] = 7
    assert a[0].item() == 7
    x = ember.ones(2, requires_grad=True)
    assert ember.Tensor(x * 2).grad_fn is not None  # keeps the history, as PyTorch's alias
    assert ember.Tensor(ember.arange(3)).dtype == ember.int64  # ember.Tensor takes any dtype
    with pytest.raises(TypeError, match=r"expected TensorOptions\(dtype=float, device=cpu.*got TensorOptions\("
                                        r"dtype=long int, device=cpu"):
        ember.FloatTensor(ember.arange(3))
    with pytest.raises(TypeError, match=r"expected TensorOptions\(dtype=double.*dtype=c10::complex<float>"):
        ember.DoubleTensor(ember.zeros(2, dtype=ember.complex64))
    with pytest.raises(RuntimeError, match=r"form ember.Tensor\(tensor, device=device\) is not supported"):
        ember.Tensor(a, device="cpu")


def test_tensor_constructor_forms():
    assert ember.Tensor().shape == (0,) and ember.Tensor().dtype == ember.float32
    assert ember.Tensor(2, 3).shape == (2, 3)
    assert ember.Tensor(ember.Size([2, 3])).shape == (2, 3)
    assert ember.Tensor((2, 3)).tolist() == [2.0, 3.0]  # a tuple is data, a Size is sizes
    assert ember.Tensor([True]).tolist() == [1.0]
    assert ember.Tensor(np.int64(2)).shape == (2,)
    assert ember.Tensor(np.array(2.0)).tolist() == 2.0
    assert ember.Tensor(range(3)).tolist() == [0.0, 1.0, 2.0]
    assert ember.Tensor(2, device="cpu").shape == (2,)
    assert ember.Tensor(size=(2,)).shape == (2,) and ember.Tensor(data=[1]).tolist() == [1.0]
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.Tensor([1]).dtype == ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


def test_tensor_subclass_construction():
    class Marked(ember.Tensor):
        pass

    m = Marked([1.0, 2.0])
    assert type(m) is Marked and m.tolist() == [1.0, 2.0]
    assert type(Marked(3)) is Marked and Marked(3).shape == (3,)


@pytest.mark.parametrize("args,kwargs,exc,msg", [
    ((2.5,), {}, TypeError, r"new\(\): data must be a sequence \(got float\)"),
    ((True,), {}, TypeError, r"data must be a sequence \(got bool\)"),
    ((None,), {}, TypeError, r"data must be a sequence \(got NoneType\)"),
    ((np.float64(2.0),), {}, TypeError, r"data must be a sequence \(got numpy.float64\)"),
    (("a",), {}, TypeError, r"new\(\): invalid data type 'str'"),
    ((-1,), {}, RuntimeError, r"Trying to create tensor with negative dimension -1: \[-1\]"),
    ((2, 3.0), {}, TypeError, r"argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple "
                              r"of ints,but got float\""),
    ((2,), {"dtype": ember.float64}, TypeError, r"invalid combination of arguments - got \(int, dtype=ember.dtype\)"),
    (([2, 3], 4), {}, TypeError, r"invalid combination of arguments - got \(list, int\)"),
    ((2,), {"device": "meta"}, RuntimeError, "legacy constructor expects device type: cpu but device type: meta"),
    ((2,), {"device": "cuda"}, RuntimeError, "legacy constructor expects device type: cpu but device type: cuda"),
])
def test_constructor_errors(args, kwargs, exc, msg):
    for cls in (ember.Tensor, ember.FloatTensor):
        with pytest.raises(exc, match=msg):
            cls(*args, **kwargs)


def test_type_names_and_conversion():
    t = ember.zeros(2)
    assert t.type() == "ember.FloatTensor"
    assert ember.zeros(2, dtype=ember.int64).type() == "ember.LongTensor"
    assert ember.zeros(2, dtype=ember.complex64).type() == "ember.ComplexFloatTensor"
    assert ember.zeros(2, device="meta").type() == "ember.meta.FloatTensor"
    assert t.type("ember.DoubleTensor").dtype == ember.float64
    assert t.type("torch.DoubleTensor").dtype == ember.float64  # code written for PyTorch
    assert t.type(ember.LongTensor).dtype == ember.int64
    assert t.type(ember.float16).dtype == ember.float16
    assert t.type(ember.Tensor).dtype == ember.float32  # the default type
    assert t.type(ember.FloatTensor) is t
    with pytest.raises(ValueError, match="invalid type: 'foo'"):
        t.type("foo")
    with pytest.raises(ValueError, match="invalid type: 'float'"):
        t.type(float)
    with pytest.raises(TypeError, match="dtype must be a type, str, or dtype object"):
        t.type(3)
    x = ember.ones(2, requires_grad=True)
    x.type(ember.DoubleTensor).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_module_type_converts_parameters():
    m = ember.nn.Linear(2, 2).type(ember.DoubleTensor)
    assert m.weight.dtype == ember.float64 and m.bias.dtype == ember.float64


def test_set_default_tensor_type():
    with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
        ember.set_default_tensor_type(ember.DoubleTensor)
    try:
        assert ember.get_default_dtype() == ember.float64 and ember.tensor([1.0]).dtype == ember.float64
        with pytest.warns(UserWarning), pytest.raises(TypeError, match="only floating-point types"):
            ember.set_default_tensor_type("ember.LongTensor")
        with pytest.warns(UserWarning), pytest.raises(TypeError, match="invalid type object"):
            ember.set_default_tensor_type(ember.float64)
    finally:
        ember.set_default_dtype(ember.float32)
