"""Tensors given one by one or as one list in scripted code, as TorchScript takes both: ember.meshgrid(ys, xs)
and ember.meshgrid([ys, xs]) (with indexing=), ember.einsum(eq, a, b); and the int-by-int forms of the shape
methods torchvision's code uses (permute, view, reshape, expand, repeat, flip). References: NumPy."""

import numpy as np
import pytest

import ember


@ember.jit.script
def grids_one_by_one(ys: ember.Tensor, xs: ember.Tensor):
    gy, gx = ember.meshgrid(ys, xs, indexing="ij")
    cx, cy = ember.meshgrid(xs, ys, indexing="xy")
    return gy, gx, cx, cy


@ember.jit.script
def grids_of_three(a: ember.Tensor, b: ember.Tensor, c: ember.Tensor):
    return ember.meshgrid(a, b, c, indexing="xy")


@ember.jit.script
def grids_as_list(ys: ember.Tensor, xs: ember.Tensor):
    return ember.meshgrid([ys, xs], indexing="ij")


@ember.jit.script
def outer_by_einsum(a: ember.Tensor, b: ember.Tensor, c: ember.Tensor):
    return ember.einsum("i,j,k->ijk", a, b, c), ember.einsum("i,j->ij", [a, b])


@ember.jit.script
def shapes_int_by_int(x: ember.Tensor):
    y = x.view(2, 3, 4).permute(2, 0, 1)
    return y, x.reshape(4, -1), x.view(1, 24).expand(3, -1), x.view(2, 12).repeat(2, 1, 3), x.view(4, 6).flip(0, 1)


def test_meshgrid_of_tensors_one_by_one():
    ys, xs = ember.arange(3.0), ember.arange(10.0, 14.0)
    gy, gx, cx, cy = grids_one_by_one(ys, xs)
    ny, nx = np.meshgrid(ys.numpy(), xs.numpy(), indexing="ij")
    mx, my = np.meshgrid(xs.numpy(), ys.numpy(), indexing="xy")
    for got, want in ((gy, ny), (gx, nx), (cx, mx), (cy, my)):
        np.testing.assert_array_equal(got.numpy(), want)
    listed = grids_as_list(ys, xs)
    np.testing.assert_array_equal(listed[0].numpy(), ny)
    np.testing.assert_array_equal(listed[1].numpy(), nx)


def test_meshgrid_of_three_in_cartesian_indexing():
    a, b, c = ember.arange(2.0), ember.arange(3.0), ember.arange(4.0)
    got = grids_of_three(a, b, c)
    want = np.meshgrid(a.numpy(), b.numpy(), c.numpy(), indexing="xy")
    assert len(got) == 3
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w)


def test_scripted_meshgrid_one_by_one_refuses_a_2d_tensor():
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor in the tensor list"):
        grids_one_by_one(ember.zeros(2, 2), ember.arange(3.0))


def test_einsum_of_operands_one_by_one():
    a, b, c = ember.arange(2.0), ember.arange(3.0) + 1, ember.arange(4.0) - 1
    three, two = outer_by_einsum(a, b, c)
    np.testing.assert_array_equal(three.numpy(), np.einsum("i,j,k->ijk", a.numpy(), b.numpy(), c.numpy()))
    np.testing.assert_array_equal(two.numpy(), np.outer(a.numpy(), b.numpy()))


def test_shape_methods_take_ints_one_by_one():
    x = ember.arange(24.0)
    n = x.numpy()
    perm, resh, exp, rep, flip = shapes_int_by_int(x)
    np.testing.assert_array_equal(perm.numpy(), n.reshape(2, 3, 4).transpose(2, 0, 1))
    np.testing.assert_array_equal(resh.numpy(), n.reshape(4, 6))
    np.testing.assert_array_equal(exp.numpy(), np.broadcast_to(n.reshape(1, 24), (3, 24)))
    np.testing.assert_array_equal(rep.numpy(), np.tile(n.reshape(2, 12), (2, 1, 3)))
    np.testing.assert_array_equal(flip.numpy(), n.reshape(4, 6)[::-1, ::-1])


def test_cat_of_tensors_one_by_one_stays_an_error():
    def bad(a: ember.Tensor, b: ember.Tensor):
        return ember.cat(a, b)

    with pytest.raises(RuntimeError, match="arguments for call of cat are not valid"):
        ember.jit.script(bad)
