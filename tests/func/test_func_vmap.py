"""ember.vmap / ember.func.vmap against per-sample loops written here and NumPy, and PyTorch's
messages for bad in_dims/out_dims, batch sizes, .item(), control flow, in-place and randomness."""
import numpy as np
import pytest

import ember
from ember.func import grad, vmap


def _np(t):
    return t.detach().numpy()


def _loop(f, xs, dim=0):
    return np.stack([f(x) for x in np.moveaxis(xs, dim, 0)])


def test_pointwise_and_reduction_match_per_sample_numpy():
    x = np.random.default_rng(0).standard_normal((5, 3, 4)).astype(np.float32)
    out = vmap(lambda a: (a.sin() * 2).sum(1))(ember.from_numpy(x))
    np.testing.assert_allclose(_np(out), _loop(lambda a: (np.sin(a) * 2).sum(1), x), rtol=1e-5)


def test_in_dims_tuple_none_and_negative():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 3)).astype(np.float32)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    out = vmap(lambda r, m: r @ m, in_dims=(-1, None))(ember.from_numpy(a.T.copy()), ember.from_numpy(w))
    np.testing.assert_allclose(_np(out), a @ w, rtol=1e-5)


def test_nested_pytree_inputs_and_outputs():
    x = ember.arange(6.).reshape(3, 2)
    y = ember.arange(3.)
    out = vmap(lambda d: {"s": d["x"].sum(), "p": (d["x"] * d["y"], d["y"])})({"x": x, "y": y})
    np.testing.assert_allclose(_np(out["s"]), _np(x).sum(1))
    np.testing.assert_allclose(_np(out["p"][0]), _np(x) * _np(y)[:, None])
    np.testing.assert_allclose(_np(out["p"][1]), _np(y))


def test_out_dims_moves_the_batch_dimension():
    x = ember.arange(12.).reshape(3, 4)
    out = vmap(lambda a: a.reshape(2, 2), out_dims=2)(x)
    expect = np.stack([_np(x)[i].reshape(2, 2) for i in range(3)], axis=2)
    assert out.shape == (2, 2, 3)
    np.testing.assert_allclose(_np(out), expect)


def test_out_dims_none_returns_the_unbatched_value():
    x = ember.ones(3, 2)
    c = ember.tensor([7.])
    out, same = vmap(lambda a: (a * 2, c), out_dims=(0, None))(x)
    assert out.shape == (3, 2) and same.shape == (1,)


def test_nested_vmap_is_an_outer_product():
    a, b = ember.arange(3.), ember.arange(4.)
    out = vmap(vmap(lambda u, v: u * v, in_dims=(None, 0)), in_dims=(0, None))(a, b)
    np.testing.assert_allclose(_np(out), np.outer(_np(a), _np(b)))


def test_vmap_of_grad_is_per_sample_gradients():
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((6, 3))
    w = rng.standard_normal(3)

    def loss(wt, x):
        return ((x * wt).sum() - 1.0) ** 2
    g = vmap(grad(loss), in_dims=(None, 0))(ember.tensor(w), ember.tensor(xs))
    expect = np.stack([2 * ((x * w).sum() - 1.0) * x for x in xs])
    np.testing.assert_allclose(_np(g), expect, rtol=1e-10)


def test_chunk_size_does_not_change_results():
    x = ember.randn(7, 3)
    np.testing.assert_allclose(_np(vmap(lambda a: a.cumsum(0), chunk_size=2)(x)), np.cumsum(_np(x), 1), rtol=1e-5)


def test_empty_batch():
    out = vmap(lambda a: a * 2)(ember.ones(0, 3))
    assert out.shape == (0, 3)


def test_randomness_modes():
    x = ember.ones(4, 3)
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness error mode"):
        vmap(lambda a: a + ember.rand(3))(x)
    same = vmap(lambda a: a + ember.rand(3), randomness="same")(x)
    assert all(ember.equal(same[0], same[i]) for i in range(4))
    diff = vmap(lambda a: a + ember.rand(3), randomness="different")(x)
    assert not ember.equal(diff[0], diff[1])
    with pytest.raises(RuntimeError, match="Only allowed values for randomness are 'error', 'different', or 'same'. "
                                           "Got foo"):
        vmap(lambda a: a, randomness="foo")


def test_item_control_flow_and_inplace_errors():
    x = ember.randn(3, 4)
    with pytest.raises(RuntimeError, match=r"vmap: It looks like you're calling \.item\(\) on a Tensor"):
        vmap(lambda a: a.sum().item())(x)
    with pytest.raises(RuntimeError, match=r"vmap: It looks like you're calling \.item\(\) on a Tensor"):
        vmap(lambda a: float(a.sum()))(x)
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        vmap(lambda a: a if a.sum() > 0 else -a)(x)
    with pytest.raises(RuntimeError, match=r"output with shape \[4\] doesn't match the broadcast shape \[3, 4\]"):
        vmap(lambda a: ember.zeros(4).add_(a))(x)


def test_argument_errors():
    x, y = ember.randn(3, 4), ember.randn(2, 4)
    with pytest.raises(ValueError, match=r"got sizes \[3, 2\] for the mapped dimension"):
        vmap(lambda a, b: a + b)(x, y)
    with pytest.raises(ValueError, match="expected in_dim to satisfy -2 <= in_dim < 2"):
        vmap(lambda a: a, in_dims=2)(x)
    with pytest.raises(ValueError, match="in_dims is not compatible with the structure of `inputs`"):
        vmap(lambda a: a, in_dims=(0, 0))(x)
    with pytest.raises(ValueError, match="expected `in_dims` to be int or a"):
        vmap(lambda a: a, in_dims=[0])(x)
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        vmap(lambda a: a)(3)
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'int'>"):
        vmap(lambda a: 3)(x)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
        vmap(lambda a: a, out_dims=2)(x)
    with pytest.raises(ValueError, match="out_dims is not compatible with the structure of `outputs`"):
        vmap(lambda a: a, out_dims=(0, 0))(x)
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        vmap(lambda a: (a, a), out_dims=(0, None))(x)
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        vmap(lambda a: a * 2, out_dims=None, randomness="different")(x)
    with pytest.raises(ValueError, match="got no inputs"):
        vmap(lambda: 1)()
    with pytest.raises(ValueError, match=r"chunk_size should be None or greater than 0. \(got 0\)"):
        vmap(lambda a: a, chunk_size=0)


def test_results_are_plain_tensors_and_keep_gradients():
    x = ember.randn(3, 2, requires_grad=True)
    out = ember.vmap(lambda a: (a * a).sum())(x)
    assert type(out) is ember.Tensor
    out.sum().backward()
    np.testing.assert_allclose(_np(x.grad), 2 * _np(x), rtol=1e-6)
