"""The script language the detection models need, each piece compared with the same code run eagerly:
advanced indexing (masks, integer tensors, adjacent tensors jointly, and assignment through them), Tensor.device
and Tensor.to, new_full/new_zeros/repeat, tolist() where annotated, int(t.item()), conversion methods, Optional
refinement in conditional expressions, tuples unified across returns, enumerate over a ModuleList, scripted
classes' constants and __call__ (also through an attribute), all()/any(), math.log2, meshgrid over a list,
tuples passed where a list is declared, an extension's op (vision::nms) as a script op, F.normalize and
F.linear rounding as eager, and CSE keeping apart two tensors that one of them is then written in place."""
import math
from typing import List, Optional, Tuple

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import Tensor, nn


def _same(fn, *args):
    got = ember.jit.script(fn)(*args)
    want = fn(*args)
    if isinstance(want, Tensor):
        assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:
        assert got == want
    return got


def test_mask_index_reads_the_set_positions():
    def f(x: Tensor, m: Tensor) -> Tensor:
        return x[m]

    x = ember.arange(12.0).reshape(3, 4)
    out = _same(f, x, x > 4.5)
    np.testing.assert_array_equal(out.numpy(), np.arange(12.0)[np.arange(12.0) > 4.5])
    rows = _same(f, x, ember.tensor([True, False, True]))
    np.testing.assert_array_equal(rows.numpy(), np.arange(12.0).reshape(3, 4)[[0, 2]])


def test_integer_tensor_index_keeps_the_index_shape_and_wraps_negatives():
    def f(x: Tensor, i: Tensor) -> Tensor:
        return x[:, i]

    x = ember.arange(12.0).reshape(3, 4)
    out = _same(f, x, ember.tensor([[3, -1], [0, 1]]))
    np.testing.assert_array_equal(out.numpy(), np.arange(12.0).reshape(3, 4)[:, [[3, -1], [0, 1]]])


def test_out_of_range_index_is_an_index_error():
    def f(x: Tensor, i: Tensor) -> Tensor:
        return x[i]

    with pytest.raises(IndexError, match="out of bounds for dimension 0 with size 3"):
        ember.jit.script(f)(ember.zeros(3), ember.tensor([0, 5]))


def test_adjacent_tensor_indices_pick_jointly():
    def f(x: Tensor, r: Tensor, c: Tensor) -> Tensor:
        return x[r, c]

    x = ember.arange(24.0).reshape(4, 6)
    r, c = ember.tensor([0, 3, 2]), ember.tensor([5, 0, -2])
    out = _same(f, x, r, c)
    np.testing.assert_array_equal(out.numpy(), np.arange(24.0).reshape(4, 6)[[0, 3, 2], [5, 0, -2]])
    broadcast = _same(f, x, ember.tensor([[1], [2]]), ember.tensor([0, 1, 2]))
    assert tuple(broadcast.shape) == (2, 3)


def test_assignment_through_masks_and_indices_writes_in_place():
    def f(x: Tensor, m: Tensor, i: Tensor, j: Tensor) -> Tensor:
        y = x.clone()
        y[m] = -1.0
        y[1, i] = 7
        y[0, i, j] = y[0, i, j] * 10
        return y

    x = ember.arange(24.0).reshape(2, 3, 4)
    m, i, j = x > 20, ember.tensor([2]), ember.tensor([3])
    out = _same(f, x, m, i, j)
    ref = np.arange(24.0).reshape(2, 3, 4)
    ref[ref > 20] = -1.0
    ref[1, [2]] = 7
    ref[0, [2], [3]] *= 10
    np.testing.assert_array_equal(out.numpy(), ref)


def test_assignment_mixing_slices_and_tensor_indices_is_refused():
    def f(x: Tensor, i: Tensor) -> Tensor:
        x[:, i] = 0.0
        return x

    with pytest.raises(ember.jit.NotSupportedError, match="tensor indexed by tensors mixed with slices"):
        ember.jit.script(f)


def test_device_to_and_new_tensors():
    def f(x: Tensor, y: Tensor) -> Tensor:
        a = y.to(x)
        b = x.new_full([2], 3.5)
        c = x.new_zeros(2, 1)
        d = ember.tensor([1, 2], dtype=ember.float64, device=x.device)
        e = x.to(dtype=ember.float64, device=x.device).to(ember.float32)
        return a.sum() + b.sum() + c.sum() + d.sum().to(x.dtype) + e.sum()

    _same(f, ember.ones(3), ember.tensor([1, 2, 3]))


def test_device_is_a_string_in_scripted_code():
    def f(x: Tensor) -> str:
        return x.device

    assert ember.jit.script(f)(ember.zeros(1)) == "cpu"


def test_repeat_tiles_as_eager():
    def f(x: Tensor) -> Tensor:
        return x.repeat(2, 1, 3)

    _same(f, ember.arange(6.0).reshape(2, 3))


def test_conversion_methods_and_item():
    def f(x: Tensor) -> Tensor:
        n = int(x.sum().item())
        return x.long() + x.byte().int() + x.double().long() + x.bool().long() + n

    _same(f, ember.tensor([0.5, 2.0, 3.0]))


def test_tolist_where_annotated():
    def f(x: Tensor) -> float:
        xs: List[float] = x.tolist()
        rows: List[List[int]] = x.reshape(2, 2).long().tolist()
        return xs[1] + float(rows[1][0])

    assert _same(f, ember.tensor([1.0, 2.5, 3.0, 4.0])) == 5.5


def test_optional_refined_in_a_conditional_expression():
    def f(xs: Optional[List[int]], i: int) -> int:
        v = xs[i] if xs is not None else -1
        return v

    assert _same(f, [4, 5], 1) == 5 and _same(f, None, 0) == -1


def test_tuples_unified_across_returns():
    def f(flag: bool, x: Tensor) -> Tuple[Tensor, Optional[Tensor]]:
        if flag:
            return x, None
        return x, x + 1

    s = ember.jit.script(f)
    assert s(True, ember.ones(1))[1] is None
    assert float(s(False, ember.ones(1))[1]) == 2.0


class _Picker(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])

    def pick(self, x: Tensor, idx: int) -> Tensor:
        out = x
        for i, block in enumerate(self.blocks):
            if i == idx:
                out = block(x)
        return out

    def forward(self, x: Tensor) -> Tensor:
        return ember.cat([self.pick(x, k) for k in range(3)])


def test_enumerate_over_a_module_list_unrolls_with_constant_indices():
    ember.manual_seed(0)
    m = _Picker()
    x = ember.randn(1, 2)
    with ember.no_grad():
        np.testing.assert_array_equal(ember.jit.script(m)(x).numpy(), m(x).numpy())


@ember.jit.script
class _Threshold:
    BELOW = -1
    SCALE = 2.5

    def __init__(self, t: float):
        self.t = t

    def __call__(self, x: Tensor) -> Tensor:
        out = (x * self.SCALE).long()
        out[x < self.t] = self.BELOW
        return out


@ember.jit.script
class _Holder:
    def __init__(self, t: float):
        self.inner = _Threshold(t)

    def __call__(self, x: Tensor) -> Tensor:
        return self.inner(x)


def test_class_constants_and_call():
    def f(x: Tensor) -> Tensor:
        return _Holder(0.5)(x) + _Threshold(0.25)(x) * _Threshold.BELOW

    out = _same(f, ember.tensor([0.1, 0.3, 0.9]))
    np.testing.assert_array_equal(out.numpy(), [-1 + 1, -1 - 0, 2 - 2])


def test_all_and_any():
    def f(xs: List[int]) -> Tuple[bool, bool, bool]:
        return all([x > 0 for x in xs]), any(x > 2 for x in xs), all(xs)

    for xs in ([1, 2, 3], [0, 1], [], [-1, -2]):
        assert _same(f, xs) == (all(x > 0 for x in xs), any(x > 2 for x in xs), all(xs))


def test_log2_meshgrid_and_tuple_arguments():
    def f(a: Tensor, b: Tensor) -> Tensor:
        grids = ember.meshgrid([a, b], indexing="ij")
        scale = math.log2(8.0)
        return (grids[0] * 10 + grids[1]).expand((2, 2, 3)) * scale

    _same(f, ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0, 5.0]))


def test_split_by_sizes():
    def f(x: Tensor, sizes: List[int]) -> Tensor:
        parts = x.split(sizes, 0)
        return parts[1].sum() * 100 + parts[0].sum()

    _same(f, ember.arange(6.0), [2, 4])


def test_extension_ops_are_script_ops():
    embervision = pytest.importorskip("embervision")
    assert embervision is not None

    def f(boxes: Tensor, scores: Tensor) -> Tensor:
        return ember.ops.vision.nms(boxes, scores, 0.5)

    boxes = ember.tensor([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 10.0, 10.0], [20.0, 20.0, 30.0, 30.0]])
    scores = ember.tensor([0.9, 0.8, 0.7])
    s = ember.jit.script(f)
    assert "vision::nms" in str(s.graph)
    np.testing.assert_array_equal(s(boxes, scores).numpy(), [0, 2])  # box 1 overlaps box 0 by IoU 0.81


def test_linear_and_normalize_round_as_eager():
    ember.manual_seed(0)
    w, b, x3 = ember.randn(5, 7), ember.randn(5), ember.randn(2, 3, 7)

    def f(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
        return F.linear(x, w, b) + F.linear(x[0], w, b).sum() + F.normalize(x, dim=2).sum()

    _same(f, x3, w, b)


def test_cse_keeps_apart_tensors_written_in_place():
    def f(x: Tensor) -> Tuple[Tensor, Tensor]:
        a = ember.zeros_like(x)
        b = ember.zeros_like(x)
        a[x > 0] = 1.0
        return a, b

    a, b = ember.jit.script(f)(ember.tensor([-1.0, 2.0]))
    np.testing.assert_array_equal(a.numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(b.numpy(), [0.0, 0.0])
