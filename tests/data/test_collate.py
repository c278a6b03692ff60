"""default_collate / default_convert against NumPy and PyTorch's documented rules."""
import collections

import numpy as np
import pytest

import ember
from ember.utils.data import default_collate, default_convert

Point = collections.namedtuple("Point", "x y")


def test_tensors_are_stacked():
    rows = [np.arange(6, dtype=np.float32).reshape(2, 3) + i for i in range(4)]
    out = default_collate([ember.tensor(r) for r in rows])
    assert out.shape == (4, 2, 3) and out.dtype == ember.float32
    np.testing.assert_array_equal(out.numpy(), np.stack(rows))


def test_numbers():
    f = default_collate([1.5, 2.5])
    assert f.dtype == ember.float64 and f.tolist() == [1.5, 2.5]
    i = default_collate([1, 2, 3])
    assert i.dtype == ember.int64 and i.tolist() == [1, 2, 3]
    b = default_collate([True, False])
    assert b.dtype == ember.bool and b.tolist() == [True, False]


def test_numpy_arrays_and_scalars():
    arrs = [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)]
    out = default_collate(arrs)
    assert out.dtype == ember.int32
    np.testing.assert_array_equal(out.numpy(), np.stack(arrs))
    s = default_collate([np.float32(1.5), np.float32(2)])
    assert s.dtype == ember.float32 and s.tolist() == [1.5, 2.0]


def test_strings_stay_lists():
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"x", b"y"]) == [b"x", b"y"]


def test_mapping_namedtuple_sequence_recursion():
    batch = [{"img": ember.tensor([1.0, 2.0]), "label": 0, "name": "a"},
             {"img": ember.tensor([3.0, 4.0]), "label": 1, "name": "b"}]
    out = default_collate(batch)
    assert isinstance(out, dict) and set(out) == {"img", "label", "name"}
    assert out["img"].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert out["label"].tolist() == [0, 1] and out["name"] == ["a", "b"]

    nt = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert isinstance(nt, Point) and nt.x.tolist() == [1, 3] and nt.y.dtype == ember.float64

    tup = default_collate([(1, "a"), (2, "b")])
    assert isinstance(tup, list) and tup[0].tolist() == [1, 2] and tup[1] == ["a", "b"]

    lst = default_collate([[1, 2], [3, 4]])
    assert isinstance(lst, list) and [t.tolist() for t in lst] == [[1, 3], [2, 4]]


def test_unequal_sequences():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])


def test_unsupported_types():
    with pytest.raises(TypeError, match=r"default_collate: batch must contain tensors, numpy arrays, numbers, "
                                        r"dicts or lists; found <class 'object'>"):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match=r"default_collate: batch must contain .* found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_stack_size_mismatch_is_an_error():
    with pytest.raises(Exception):
        default_collate([ember.zeros(2), ember.zeros(3)])


def test_default_convert():
    a = np.arange(3)
    t = default_convert(a)
    assert isinstance(t, ember.Tensor) and t.tolist() == [0, 1, 2]
    assert isinstance(default_convert(np.float64(2.0)), ember.Tensor)
    assert default_convert(3) == 3 and default_convert("s") == "s"
    out = default_convert({"a": a, "b": [np.array([1.0]), 2]})
    assert isinstance(out["a"], ember.Tensor) and isinstance(out["b"][0], ember.Tensor) and out["b"][1] == 2
    p = default_convert(Point(a, 1))
    assert isinstance(p, Point) and isinstance(p.x, ember.Tensor)
    assert isinstance(default_convert((a, 1)), list)
    strings = np.array(["x"])
    assert default_convert(strings) is strings
