"""In-place view ops (t_, transpose_/swapdims_/swapaxes_, squeeze_, unsqueeze_, as_strided_) and the
resize family: the same Python object changes shape, autograd follows, PyTorch's messages."""
import math

import numpy as np
import pytest

import ember


def test_inplace_views_change_the_tensor_itself():
    a = np.arange(24.0).reshape(2, 3, 4)
    t = ember.tensor(a)
    assert t.transpose_(0, 2) is t and t.shape == (4, 3, 2)
    np.testing.assert_array_equal(t.numpy(), a.transpose(2, 1, 0))
    assert t.swapdims_(0, 2) is t and t.shape == (2, 3, 4)
    assert t.swapaxes_(1, 2).shape == (2, 4, 3)
    m = ember.tensor(a[0])
    assert m.t_() is m and m.shape == (4, 3)
    np.testing.assert_array_equal(m.numpy(), a[0].T)
    s = ember.ones(2, 1, 3, 1)
    assert s.squeeze_(1) is s and s.shape == (2, 3, 1)
    assert s.squeeze_().shape == (2, 3)
    assert s.unsqueeze_(-1).shape == (2, 3, 1)
    f = ember.tensor(np.arange(12.0))
    assert ember.as_strided_(f, (2, 3), (3, 1), 3) is f
    np.testing.assert_array_equal(f.numpy(), np.arange(3.0, 9.0).reshape(2, 3))
    assert f.as_strided_((2,), (1,)).tolist() == [3.0, 4.0]  # storage_offset None keeps the offset


def test_inplace_views_share_storage_with_other_views():
    base = ember.zeros(2, 3)
    alias = base.view(2, 3)
    alias.t_()
    alias[0, 1] = 5.0
    assert base[1, 0].item() == 5.0 and base.shape == (2, 3)


def test_inplace_view_errors():
    with pytest.raises(RuntimeError, match="<= 2 dim"):
        ember.ones(2, 3, 4).t_()
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.ones(2, 3).transpose_(0, 5)
    leaf = ember.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        leaf.t_()


def test_inplace_views_record_autograd():
    x = ember.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = x * 1
    y.t_()
    (y * ember.tensor(np.arange(6.0).reshape(3, 2))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(6.0).reshape(3, 2).T)
    x.grad = None
    z = x * 1
    z.unsqueeze_(0).squeeze_(0)
    (z * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0))


def test_resize_shrinks_and_grows_keeping_data():
    t = ember.arange(6.0)
    assert t.resize_(2, 2) is t and t.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    t.resize_([6])
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]  # the storage kept the tail
    t.resize_(3, 3)
    assert t.shape == (3, 3) and t.flatten()[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    other = ember.ones(2, 5, dtype=ember.int64)
    assert ember.resize_as_(t, other) is t and t.shape == (2, 5)
    assert t.resize_as_(ember.ones(4)).shape == (4,)


def test_resize_fills_new_memory_under_deterministic_mode():
    prev = ember.are_deterministic_algorithms_enabled()
    ember.use_deterministic_algorithms(True)
    try:
        f = ember.zeros(2)
        f.resize_(5)
        assert f[:2].tolist() == [0.0, 0.0] and all(math.isnan(v) for v in f[2:].tolist())
        i = ember.zeros(1, dtype=ember.int16)
        i.resize_(3)
        assert i.tolist() == [0, 32767, 32767]
        b = ember.zeros(1, dtype=ember.bool)
        b.resize_(2)
        assert b.tolist() == [False, True]
    finally:
        ember.use_deterministic_algorithms(prev)


def test_resize_refuses_grad_and_negative_sizes():
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        x.resize_(3)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        (x * 2).resize_(2)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        ember.ones(2).resize_(-1)


def test_out_of_place_resize_is_a_reshape_with_a_warning():
    a = ember.arange(6.0)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = a.resize(2, 3)
    assert r.shape == (2, 3) and a.shape == (6,)
    with pytest.warns(UserWarning):
        assert a.resize_as(ember.ones(3, 2)).shape == (3, 2)
    with pytest.raises(RuntimeError, match="autograd's resize can only change the shape"), pytest.warns(UserWarning):
        a.resize(4)


def test_python_out_arguments_resize_and_check_the_cast():
    out = ember.empty(0, dtype=ember.float64)
    with pytest.warns(UserWarning):
        ember.range(0, 2, out=out)
    assert out.tolist() == [0.0, 1.0, 2.0]
    a, b = ember.tensor([1.0, 0, 0]), ember.tensor([0, 1.0, 0])
    res = ember.empty(0)
    assert ember.cross(a, b, dim=0, out=res) is res and res.tolist() == [0.0, 0.0, 1.0]
    bad = ember.empty(0, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.cross(a, b, dim=0, out=bad)
    m, e = ember.empty(0), ember.empty(0, dtype=ember.int32)
    ember.frexp(ember.tensor([8.0]), out=(m, e))
    assert m.tolist() == [0.5] and e.tolist() == [4]


def test_forward_mode_refuses_inplace_view_ops_by_name():
    from ember.autograd import forward_ad
    with forward_ad.dual_level():
        x = forward_ad.make_dual(ember.ones(2, 3, dtype=ember.float64), ember.ones(2, 3, dtype=ember.float64))
        y = x * 1
        with pytest.raises(NotImplementedError, match="forward-mode AD of an in-place view op"):
            y.t_()
        z = x * 1
        z.exp_()  # other in-place ops keep working
        np.testing.assert_allclose(forward_ad.unpack_dual(z).tangent.numpy(), np.full((2, 3), math.e))
