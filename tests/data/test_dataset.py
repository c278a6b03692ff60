"""Datasets and random_split, against hand-computed expectations."""
import math
import warnings

import numpy as np
import pytest

import ember
from ember.utils.data import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                              Subset, TensorDataset, random_split)


class Range(Dataset):
    def __init__(self, start, stop):
        self.items = list(range(start, stop))

    def __getitem__(self, i):
        return self.items[i]

    def __len__(self):
        return len(self.items)


class Stream(IterableDataset):
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


def test_tensor_dataset_rows_and_length():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.array([3, 1, 4, 1])
    ds = TensorDataset(ember.tensor(x), ember.tensor(y))
    assert len(ds) == 4
    a, b = ds[2]
    np.testing.assert_array_equal(a.numpy(), x[2])
    assert b.item() == 4


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(ember.zeros(3, 2), ember.zeros(4))


def test_concat_and_add():
    a, b, c = Range(0, 3), Range(10, 12), Range(20, 24)
    ds = ConcatDataset([a, b, c])
    assert len(ds) == 9
    assert ds.cumulative_sizes == [3, 5, 9]
    assert [ds[i] for i in range(9)] == [0, 1, 2, 10, 11, 20, 21, 22, 23]
    assert ds[-1] == 23 and ds[-9] == 0 and ds[-6] == 10
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        ds[-10]
    with pytest.raises(IndexError):
        ds[9]
    added = a + b
    assert isinstance(added, ConcatDataset) and [added[i] for i in range(5)] == [0, 1, 2, 10, 11]


def test_concat_rejects_empty_and_iterable():
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Range(0, 2), Stream([1])])


def test_chain_dataset_and_iterable_add():
    ds = ChainDataset([Stream([1, 2]), Stream([3])])
    assert list(ds) == [1, 2, 3] and len(ds) == 3
    assert list(Stream([1]) + Stream([2, 3])) == [1, 2, 3]
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([Stream([1]), Range(0, 2)]))


def test_subset_indices_and_list_index():
    base = Range(100, 110)
    sub = Subset(base, [9, 0, 4])
    assert len(sub) == 3
    assert [sub[i] for i in range(3)] == [109, 100, 104]
    assert sub.__getitems__([2, 0]) == [104, 109]


def test_stack_dataset():
    s = StackDataset(Range(0, 3), Range(5, 8))
    assert s[1] == (1, 6) and len(s) == 3
    d = StackDataset(a=Range(0, 2), b=Range(3, 5))
    assert d[0] == {"a": 0, "b": 3}
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(Range(0, 2), Range(0, 3))
    with pytest.raises(ValueError, match="but both types are given"):
        StackDataset(Range(0, 2), b=Range(0, 2))


def _expected_fraction_lengths(n, fracs):
    # The documented rule: floor(n * f) each, then the remainder one at a time, round robin.
    lengths = [math.floor(n * f) for f in fracs]
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    return lengths


@pytest.mark.filterwarnings("ignore:Length of split")
@pytest.mark.parametrize("n,fracs,expected", [
    (10, [0.3, 0.3, 0.4], [3, 3, 4]),
    (11, [0.5, 0.5], [6, 5]),
    (7, [0.25, 0.25, 0.25, 0.25], [2, 2, 2, 1]),
    (5, [0.1, 0.1, 0.8], [1, 0, 4]),
    (9, [0.2, 0.2, 0.6], [2, 2, 5]),
])
def test_random_split_fraction_lengths(n, fracs, expected):
    assert _expected_fraction_lengths(n, fracs) == expected
    parts = random_split(Range(0, n), fracs, generator=ember.Generator().manual_seed(0))
    assert [len(p) for p in parts] == expected


def test_random_split_partitions_with_generator_order():
    n = 20
    parts = random_split(Range(0, n), [5, 15], generator=ember.Generator().manual_seed(3))
    values = [parts[0][i] for i in range(5)] + [parts[1][i] for i in range(15)]
    assert sorted(values) == list(range(n))
    perm = ember.randperm(n, generator=ember.Generator().manual_seed(3)).tolist()
    assert values == perm
    again = random_split(Range(0, n), [5, 15], generator=ember.Generator().manual_seed(3))
    assert again[0].indices == parts[0].indices


def test_random_split_default_generator_follows_manual_seed():
    ember.manual_seed(7)
    a = random_split(Range(0, 10), [4, 6])[0].indices
    ember.manual_seed(7)
    b = random_split(Range(0, 10), [4, 6])[0].indices
    assert a == b


def test_random_split_bad_lengths():
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(Range(0, 10), [3, 3])
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(Range(0, 10), [0.5, 0.3])  # fractions not summing to 1
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(Range(0, 10), [0.5, 1.5, -1.0])


def test_random_split_zero_length_warns():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        parts = random_split(Range(0, 2), [0.1, 0.1, 0.8], generator=ember.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [1, 0, 1]
    assert any("Length of split at index 1 is 0" in str(x.message) for x in w)
