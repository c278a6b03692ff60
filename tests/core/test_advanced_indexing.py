"""Advanced indexing (t[...] and t[...] = v with integer tensors, lists, NumPy arrays and bool masks
mixed with ints, slices, None and Ellipsis) against NumPy on a seeded set of generated expressions,
plus the placement rules where PyTorch and NumPy differ, and the errors.

Placement follows PyTorch: integers (and Python bools, None, Ellipsis) are applied first as basic
indexing, then the advanced indices act on that view, their dims going in place when adjacent in
it and to the front otherwise. NumPy agrees except in two corners - an integer counts as an advanced
index there (x[0, :, [1, 2]] has shape (2, n) in NumPy, (n, 2) here) and an empty Ellipsis still
separates - so the reference applies the basic part with NumPy first, then the advanced part with
NumPy on that view; expressions outside those corners are also checked against NumPy in one step."""
import numpy as np
import pytest

import ember

N_EXPR = 320


# ---- the generator ----

def _index_array(rng, shape, size):
    return rng.integers(-size, size, size=shape)


def _adv_form(rng, arr):
    """One integer index array as an ember tensor, a NumPy array or a (nested) Python list."""
    k = rng.integers(0, 4)
    if k == 0:
        return ember.tensor(arr.astype(np.int64))
    if k == 1 and arr.ndim >= 1:
        return arr.tolist()
    if k == 2:
        return ember.tensor(arr.astype(np.int32))
    return arr.astype(np.int64)


def _mask_form(rng, m):
    k = rng.integers(0, 3)
    if k == 0:
        return ember.tensor(m)
    if k == 1 and m.ndim == 1:
        return m.tolist()
    return m


def generate(seed):
    """(shape, items) where items are (kind, ember_form, numpy_form, ndims_consumed)."""
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(1, 5))
    shape = tuple(int(s) for s in rng.integers(1, 6, size=ndim))
    if rng.random() < 0.05:
        shape = shape[:-1] + (0,)
    # a broadcast shape all advanced index arrays of this expression share
    bshape = [(), (3,), (2, 3), (1, 3), (2, 1)][int(rng.integers(0, 5))]
    items = []
    d = 0
    used_ellipsis = False
    use_mask = rng.random() < 0.25
    mask_done = False
    while d < ndim:
        r = rng.random()
        if r < 0.1:
            items.append(("none", None, None, 0))
            continue
        if r < 0.15 and not used_ellipsis:
            used_ellipsis = True
            k = int(rng.integers(0, ndim - d + 1))
            items.append(("ellipsis", Ellipsis, Ellipsis, k))
            d += k
            continue
        if r < 0.18:
            items.append(("true", True, None, 0))
            continue
        size = shape[d]
        if use_mask and not mask_done and rng.random() < 0.5:
            k = int(min(ndim - d, rng.integers(1, 3)))
            m = rng.random(shape[d:d + k]) < 0.5
            items.append(("mask", _mask_form(rng, m), m, k))
            mask_done = True
            d += k
            continue
        r = rng.random()
        if r < 0.2 and size > 0:
            v = int(rng.integers(-size, size))
            items.append(("int", v, v, 1))
        elif r < 0.45:
            start = int(rng.integers(-size - 1, size + 2)) if rng.random() < 0.7 else None
            stop = int(rng.integers(-size - 1, size + 2)) if rng.random() < 0.7 else None
            step = int(rng.integers(1, 4)) if rng.random() < 0.5 else None
            sl = slice(start, stop, step)
            items.append(("slice", sl, sl, 1))
        elif r < 0.55:
            items.append(("slice", slice(None), slice(None), 1))
        elif size > 0 and not use_mask:
            # an array of the shared broadcast shape, or one that broadcasts to it
            shp = tuple(1 if rng.random() < 0.3 else s for s in bshape)
            if len(shp) and rng.random() < 0.3:
                shp = shp[1:]
            arr = _index_array(rng, shp, size)
            # a 0-dim integer array is an integer (a basic index), as in PyTorch
            items.append(("int" if arr.ndim == 0 else "adv", _adv_form(rng, arr), arr, 1))
        else:
            items.append(("slice", slice(None), slice(None), 1))
        d += 1
    # Leave off trailing dims sometimes (they are then taken whole).
    return shape, items


def ember_index(items):
    return tuple(e for _, e, _, _ in items)


def numpy_reference_index(x, items):
    """x indexed as PyTorch does it, with NumPy: the basic part first, then the advanced part."""
    first, second = [], []
    for kind, _, n, k in items:
        if kind in ("int",):
            first.append(int(n))
        elif kind in ("slice",):
            first.append(n)
            second.append(slice(None))
        elif kind in ("none", "true"):
            first.append(None)
            second.append(slice(None))
        elif kind == "ellipsis":
            first.append(Ellipsis)
            second.extend([slice(None)] * k)
        elif kind == "adv":
            first.append(slice(None))
            second.append(n)
        elif kind == "mask":
            first.extend([slice(None)] * k)
            second.append(n)
    v = x[tuple(first)]
    if not any(kind in ("adv", "mask") for kind, *_ in items):
        return v, None
    return v, tuple(second)


def numpy_direct_ok(items):
    """Whether NumPy's one-step reading agrees with PyTorch's rule for this expression."""
    kinds = [k for k, *_ in items]
    adv = sum(k in ("adv", "mask") for k in kinds)
    if adv == 0:
        return "true" not in kinds
    return "int" not in kinds and "ellipsis" not in kinds and "true" not in kinds


def numpy_direct_index(items):
    return tuple(n if kind != "true" else True for kind, _, n, _ in items)


def _base(shape, seed, dtype=np.float32):
    rng = np.random.default_rng(seed + 99)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def _read_ref(x, items):
    v, second = numpy_reference_index(x, items)
    return v if second is None else v[second]


@pytest.mark.parametrize("case", range(N_EXPR))
def test_generated_read(case):
    shape, items = generate(case)
    dtype = [np.float32, np.int64, np.float64, np.int16][case % 4]
    xn = _base(shape, case, dtype)
    x = ember.tensor(xn)
    want = _read_ref(xn, items)
    got = x[ember_index(items)]
    np.testing.assert_array_equal(got.numpy(), want, err_msg=f"shape {shape} index {items}")
    assert tuple(got.shape) == want.shape
    if numpy_direct_ok(items):
        direct = xn[numpy_direct_index(items)]
        np.testing.assert_array_equal(got.numpy(), direct)
    # The same expression on a non-contiguous tensor with the same values.
    xt = ember.tensor(np.ascontiguousarray(np.transpose(xn))).permute(*reversed(range(len(shape))))
    np.testing.assert_array_equal(xt[ember_index(items)].numpy(), want)


@pytest.mark.parametrize("case", range(N_EXPR))
def test_generated_write(case):
    shape, items = generate(case)
    dtype = [np.float32, np.int64, np.float64, np.int16][case % 4]
    xn = _base(shape, case, dtype)
    target = _read_ref(xn, items)
    # Values derived from what is read there, so duplicate indices write equal values and the
    # result does not depend on which duplicate wins.
    kind = case % 3
    if kind == 0:
        value_np = (target * 2 + 1).astype(dtype)
        value = ember.tensor(value_np)
    elif kind == 1:
        value_np = (target - 3).astype(np.float64)  # converted to the tensor's dtype on write
        value = ember.tensor(value_np)
    else:
        value_np = 7
        value = 7
    x = ember.tensor(xn)
    x[ember_index(items)] = value
    ref = xn.copy()
    v, second = numpy_reference_index(ref, items)
    if second is None:
        first = tuple(int(n) if kind == "int" else (None if kind in ("none", "true") else n)
                      for kind, _, n, _ in items)
        ref[first] = value_np
    else:
        v[second] = value_np
    np.testing.assert_array_equal(x.numpy(), ref, err_msg=f"shape {shape} index {items}")


def test_generated_set_is_mixed():
    """The generated set really mixes every kind of index (and holds at least 200 expressions)."""
    seen = {}
    for case in range(N_EXPR):
        _, items = generate(case)
        kinds = {k for k, *_ in items}
        for k in kinds:
            seen[k] = seen.get(k, 0) + 1
        if "adv" in kinds and kinds & {"slice", "none", "ellipsis"}:
            seen["mixed"] = seen.get("mixed", 0) + 1
    assert N_EXPR >= 200
    for k in ("adv", "mask", "int", "slice", "none", "ellipsis", "true", "mixed"):
        assert seen.get(k, 0) >= 10, (k, seen)


# ---- placement rules, by hand ----

def test_adjacent_indices_stay_in_place():
    x = np.arange(3 * 4 * 5 * 6).reshape(3, 4, 5, 6)
    t = ember.tensor(x)
    i, j = [1, 0, 2], [2, 1, 0]
    assert tuple(t[:, i, j].shape) == (3, 3, 6)
    np.testing.assert_array_equal(t[:, i, j].numpy(), x[:, i, j])


def test_separated_indices_go_first():
    x = np.arange(3 * 4 * 5 * 6).reshape(3, 4, 5, 6)
    t = ember.tensor(x)
    i, j = [1, 0], [2, 1]
    assert tuple(t[:, i, :, j].shape) == (2, 3, 5)
    np.testing.assert_array_equal(t[:, i, :, j].numpy(), x[:, i, :, j])
    # None between advanced indices separates them too
    np.testing.assert_array_equal(t[i, None, j].numpy(), x[i, None, j])


def test_integer_is_basic_as_in_pytorch():
    x = np.arange(24).reshape(4, 3, 2)
    t = ember.tensor(x)
    got = t[1, :, [0, 1]]
    assert tuple(got.shape) == (3, 2)  # NumPy gives (2, 3) here
    np.testing.assert_array_equal(got.numpy(), x[1][:, [0, 1]])


def test_empty_ellipsis_does_not_separate():
    x = np.arange(60).reshape(3, 4, 5)
    t = ember.tensor(x)
    got = t[:, [0, 1], ..., [0, 1]]
    assert tuple(got.shape) == (3, 2)  # NumPy gives (2, 3): its empty Ellipsis still separates
    np.testing.assert_array_equal(got.numpy(), x[:, [0, 1], [0, 1]])


def test_broadcast_index_arrays():
    x = np.arange(20).reshape(4, 5)
    t = ember.tensor(x)
    rows = ember.tensor([[0], [3]])
    cols = ember.tensor([1, 4, -1])
    np.testing.assert_array_equal(t[rows, cols].numpy(), x[np.array([[0], [3]]), np.array([1, 4, -1])])


def test_masks():
    x = np.arange(24.0).reshape(2, 3, 4)
    t = ember.tensor(x)
    m = x[..., 0] > 5
    np.testing.assert_array_equal(t[ember.tensor(m)].numpy(), x[m])
    m3 = x > 10
    np.testing.assert_array_equal(t[ember.tensor(m3)].numpy(), x[m3])
    np.testing.assert_array_equal(t[:, [True, False, True]].numpy(), x[:, [True, False, True]])
    np.testing.assert_array_equal(t[1, :, np.array([True, False, False, True])].numpy(),
                                  x[1][:, np.array([True, False, False, True])])
    # uint8 tensors are masks, as in PyTorch (deprecated there: it warns)
    with pytest.warns(UserWarning, match="uint8 is now deprecated"):
        np.testing.assert_array_equal(t[ember.tensor(m.astype(np.uint8))].numpy(), x[m])


def test_python_and_tensor_bools():
    x = np.arange(6.0).reshape(2, 3)
    t = ember.tensor(x)
    assert tuple(t[True].shape) == (1, 2, 3)
    assert tuple(t[False].shape) == (0, 2, 3)
    assert tuple(t[ember.tensor(True)].shape) == (1, 2, 3)
    assert tuple(t[ember.tensor(False)].shape) == (0, 2, 3)
    assert tuple(t[:, True].shape) == (2, 1, 3)
    assert tuple(t[:, False, 0].shape) == (2, 0)


def test_zero_dim_integer_tensor_is_an_integer():
    x = np.arange(12).reshape(3, 4)
    t = ember.tensor(x)
    np.testing.assert_array_equal(t[ember.tensor(2)].numpy(), x[2])
    np.testing.assert_array_equal(t[ember.tensor(2), [1, 3]].numpy(), x[2, [1, 3]])


def test_top_level_list_rules():
    x = np.arange(12).reshape(3, 4)
    t = ember.tensor(x)
    np.testing.assert_array_equal(t[[2, 0]].numpy(), x[[2, 0]])
    np.testing.assert_array_equal(t[[]].numpy(), x[np.array([], dtype=np.int64)])
    # A short list holding sequences is a tuple of indices (PyTorch's reading; NumPy now reads it as
    # one 2-D index array).
    np.testing.assert_array_equal(t[[[0, 1], [1, 2]]].numpy(), x[[0, 1], [1, 2]])
    np.testing.assert_array_equal(t[[slice(None), 1]].numpy(), x[:, 1])
    np.testing.assert_array_equal(t[(np.array([0, 2]),)].numpy(), x[[0, 2]])


def test_read_is_a_copy_and_write_goes_through_views():
    x = ember.arange(10.0)
    y = x[[1, 2]]
    y[0] = 100
    assert x[1].item() == 1.0
    v = x[2:]
    v[[0, 1]] = ember.tensor([-1.0, -2.0])
    np.testing.assert_array_equal(x.numpy()[:4], [0, 1, -1, -2])


def test_write_broadcasts_and_converts():
    x = np.zeros((3, 4), dtype=np.int32)
    t = ember.tensor(x)
    t[[0, 2]] = ember.tensor([1.9, 2.0, 3.0, 4.0])
    x[[0, 2]] = np.array([1.9, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(t.numpy(), x)
    t[:, [1, 3]] = ember.tensor([[5], [6], [7]])
    x[:, [1, 3]] = [[5], [6], [7]]
    np.testing.assert_array_equal(t.numpy(), x)
    t[ember.tensor(x > 4)] = -1
    x[x > 4] = -1
    np.testing.assert_array_equal(t.numpy(), x)
    # leading size-1 dims of the value are dropped
    t[[1]] = ember.tensor([[[9, 9, 9, 9]]])
    x[[1]] = 9
    np.testing.assert_array_equal(t.numpy(), x)


def test_write_from_overlapping_value():
    # PyTorch refuses values sharing the written tensor's memory; a clone() is the way.
    x = np.arange(6.0)
    t = ember.tensor(x)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        t[[1, 2, 3, 4, 5]] = t[:5]
    t[[1, 2, 3, 4, 5]] = t[:5].clone()
    x[[1, 2, 3, 4, 5]] = x[:5].copy()
    np.testing.assert_array_equal(t.numpy(), x)


def _np(t):
    return (t.to(ember.float64) if t.dtype == ember.bfloat16 else t).numpy()


@pytest.mark.parametrize("dt", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                "float32", "float64", "complex64", "complex128"])
def test_all_dtypes_read_write(dt):
    t = ember.arange(12).reshape(3, 4).to(getattr(ember, dt))
    ref = _np(t).copy()
    got = t[[2, 0], 1:]
    assert got.dtype == t.dtype
    np.testing.assert_array_equal(_np(got), ref[[2, 0], 1:])
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        t[[1, 2], [3, 0]] = t[0, 1]  # a value inside t, refused as in PyTorch
    t[[1, 2], [3, 0]] = t[0, 1].clone()
    ref[[1, 2], [3, 0]] = ref[0, 1]
    np.testing.assert_array_equal(_np(t), ref)
    m = ref != ref[0, 1]
    np.testing.assert_array_equal(_np(t[ember.tensor(m)]), ref[m])


def test_large_gather_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(300_000).astype(np.float32)
    idx = rng.integers(-300_000, 300_000, 200_000)
    np.testing.assert_array_equal(ember.tensor(x)[ember.tensor(idx)].numpy(), x[idx])
    m = x > 0.3
    np.testing.assert_array_equal(ember.tensor(x)[ember.tensor(m)].numpy(), x[m])


# ---- errors ----

def test_out_of_range_names_index_and_size():
    t = ember.arange(5.0)
    with pytest.raises(IndexError, match="index 10 is out of bounds for dimension 0 with size 5"):
        t[ember.tensor([0, 10])]
    with pytest.raises(IndexError, match="index -6 is out of bounds for dimension 0 with size 5"):
        t[[-6]]
    m = ember.zeros(3, 4)
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 1 with size 4"):
        m[[0, 1], [0, 7]]
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
        m[:, [4]]
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        m[[3], :] = 1.0
    with pytest.raises(IndexError, match="out of bounds"):
        ember.arange(1_000_000)[ember.tensor([0] * 100_000 + [1_000_000])]


def test_bad_index_types():
    t = ember.zeros(3, 4)
    with pytest.raises(IndexError, match="long, int, byte or bool"):
        t[ember.tensor([0.0, 1.0])]
    with pytest.raises(IndexError, match="long, int, byte or bool"):
        t[ember.tensor([0, 1], dtype=ember.int16)]
    with pytest.raises(IndexError):
        t["a"]
    with pytest.raises(IndexError):
        t[[0.5, 1.5]]


def test_shape_errors():
    t = ember.zeros(3, 4)
    with pytest.raises(IndexError, match="shape mismatch"):
        t[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="mask"):
        t[ember.ones(4, dtype=ember.bool)]
    with pytest.raises(IndexError, match="too many indices"):
        t[[0], [0], [0]]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., [0], ...]
    with pytest.raises(RuntimeError, match="shape mismatch"):
        t[[0, 1]] = ember.ones(3)
    with pytest.raises(TypeError):
        t[[0, 1]] = "x"
    with pytest.raises(RuntimeError):
        ember.zeros(3, dtype=ember.uint8)[[0]] = 300
