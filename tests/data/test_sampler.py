"""Samplers: orders, lengths, seeding and argument checks."""
import math

import pytest

import ember
from ember.utils.data import (BatchSampler, DistributedSampler, RandomSampler, SequentialSampler,
                              SubsetRandomSampler, WeightedRandomSampler)


def gen(seed):
    g = ember.Generator()
    g.manual_seed(seed)
    return g


def test_sequential():
    s = SequentialSampler(range(5))
    assert list(s) == [0, 1, 2, 3, 4] and len(s) == 5


def test_random_sampler_is_a_seeded_permutation():
    s = RandomSampler(range(10), generator=gen(1))
    order = list(s)
    assert sorted(order) == list(range(10)) and len(s) == 10
    assert order == ember.randperm(10, generator=gen(1)).tolist()
    assert list(RandomSampler(range(10), generator=gen(1))) == order


def test_random_sampler_global_seed():
    ember.manual_seed(5)
    a = list(RandomSampler(range(50)))
    ember.manual_seed(5)
    b = list(RandomSampler(range(50)))
    c = list(RandomSampler(range(50)))
    assert a == b and sorted(a) == list(range(50)) and a != c


def test_random_sampler_num_samples_without_replacement_chains_permutations():
    order = list(RandomSampler(range(4), num_samples=10, generator=gen(0)))
    assert len(order) == 10
    assert sorted(order[:4]) == [0, 1, 2, 3] and sorted(order[4:8]) == [0, 1, 2, 3]
    assert len(set(order[8:])) == 2


def test_random_sampler_replacement():
    s = RandomSampler(range(3), replacement=True, num_samples=100, generator=gen(0))
    order = list(s)
    assert len(order) == 100 == len(s) and set(order) <= {0, 1, 2} and len(set(order)) == 3


def test_random_sampler_checks():
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=1"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        RandomSampler([], replacement=False)


def test_subset_random_sampler():
    idx = [10, 20, 30, 40]
    s = SubsetRandomSampler(idx, generator=gen(2))
    order = list(s)
    perm = ember.randperm(4, generator=gen(2)).tolist()
    assert order == [idx[i] for i in perm] and len(s) == 4


def test_weighted_random_sampler():
    w = [0.0, 1.0, 0.0, 3.0]
    order = list(WeightedRandomSampler(w, 2000, generator=gen(0)))
    assert set(order) == {1, 3}
    assert abs(order.count(3) / 2000 - 0.75) < 0.05
    no_repl = list(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False, generator=gen(0)))
    assert sorted(no_repl) == [0, 1, 2]
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        WeightedRandomSampler(w, -1)
    with pytest.raises(ValueError, match="replacement should be a boolean value"):
        WeightedRandomSampler(w, 2, replacement=0)
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights have shape \(2, 2\)"):
        WeightedRandomSampler([[1.0, 2.0], [3.0, 4.0]], 2)


@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler(drop_last):
    b = BatchSampler(SequentialSampler(range(10)), 3, drop_last)
    expected = [[0, 1, 2], [3, 4, 5], [6, 7, 8]] + ([] if drop_last else [[9]])
    assert list(b) == expected and len(b) == len(expected)


def test_batch_sampler_checks():
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
            BatchSampler(range(4), bad, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=1"):
        BatchSampler(range(4), 2, 1)


def _distributed_reference(n, replicas, drop_last, order):
    # PyTorch's rule: pad by repeating the head (without drop_last) or cut the tail, then stride.
    if drop_last and n % replicas:
        per = math.ceil((n - replicas) / replicas)
    else:
        per = math.ceil(n / replicas)
    total = per * replicas
    order = list(order)
    while len(order) < total:
        order += order[:total - len(order)]
    order = order[:total]
    return [order[r:total:replicas] for r in range(replicas)]


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (2, 5, False), (9, 3, True)])
def test_distributed_sampler_unshuffled(n, replicas, drop_last):
    parts = [list(DistributedSampler(range(n), replicas, r, shuffle=False, drop_last=drop_last))
             for r in range(replicas)]
    assert parts == _distributed_reference(n, replicas, drop_last, range(n))
    assert all(len(p) == len(DistributedSampler(range(n), replicas, 0, drop_last=drop_last)) for p in parts)


def test_distributed_sampler_hand_computed():
    assert [list(DistributedSampler(range(5), 2, r, shuffle=False)) for r in (0, 1)] == [[0, 2, 4], [1, 3, 0]]
    assert [list(DistributedSampler(range(5), 2, r, shuffle=False, drop_last=True)) for r in (0, 1)] == [[0, 2], [1, 3]]
    assert [list(DistributedSampler(range(2), 5, r, shuffle=False)) for r in range(5)] == [[0], [1], [0], [1], [0]]


def test_distributed_sampler_shuffle_epoch():
    s = DistributedSampler(range(8), 2, 1, shuffle=True, seed=4)
    perm = ember.randperm(8, generator=gen(4)).tolist()
    assert list(s) == perm[1::2]
    s.set_epoch(3)
    assert list(s) == ember.randperm(8, generator=gen(7)).tolist()[1::2]


def test_distributed_sampler_checks():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), 2, 2)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(range(4), 2, -1)
    # ember.distributed exists: without a process group, rank and world size are unknown (PyTorch's error).
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))
