"""DataLoader in the main process: batching, orders, lengths and the argument checks."""
import numpy as np
import pytest

import ember
from ember.utils.data import (BatchSampler, DataLoader, Dataset, IterableDataset, SequentialSampler,
                              TensorDataset)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return {"x": np.array([i, i * i], dtype=np.float32), "i": i}

    def __len__(self):
        return self.n


class Count(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


class PlainTensorDataset(TensorDataset):
    """Same samples, but a subclass: takes the generic per-sample path."""


def test_sequential_batches_and_len():
    dl = DataLoader(Squares(10), batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 == len(batches)
    assert [b["i"].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    np.testing.assert_array_equal(batches[1]["x"].numpy(), np.array([[i, i * i] for i in range(4, 8)], np.float32))
    dl = DataLoader(Squares(10), batch_size=4, drop_last=True)
    assert len(dl) == 2 and [b["i"].tolist() for b in dl] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_default_batch_size_is_one():
    batches = list(DataLoader(Squares(3)))
    assert [b["i"].tolist() for b in batches] == [[0], [1], [2]]


def test_shuffle_order_follows_generator():
    n = 23
    g = ember.Generator()
    g.manual_seed(11)
    got = [i for b in DataLoader(Squares(n), batch_size=5, shuffle=True, generator=g) for i in b["i"].tolist()]
    # PyTorch's draw order: the iterator's base seed, then the sampler's permutation.
    ref = ember.Generator()
    ref.manual_seed(11)
    ember.empty((), dtype=ember.int64).random_(generator=ref)
    assert got == ember.randperm(n, generator=ref).tolist()


def test_shuffle_with_global_seed_reproducible():
    def epoch():
        return [b["i"].tolist() for b in DataLoader(Squares(20), batch_size=6, shuffle=True)]
    ember.manual_seed(3)
    a = epoch()
    ember.manual_seed(3)
    assert epoch() == a and sorted(sum(a, [])) == list(range(20))


def test_batch_size_none_disables_collation():
    out = list(DataLoader(Squares(3), batch_size=None))
    assert len(out) == 3 and isinstance(out[1]["x"], ember.Tensor) and out[1]["x"].shape == (2,)
    assert out[2]["i"] == 2  # Python ints are left alone by default_convert


def test_batch_sampler_and_custom_collate():
    dl = DataLoader(Squares(6), batch_sampler=[[5, 0], [2]], collate_fn=lambda b: [s["i"] for s in b])
    assert list(dl) == [[5, 0], [2]] and len(dl) == 2
    bs = BatchSampler(SequentialSampler(range(5)), 2, True)
    assert [b["i"].tolist() for b in DataLoader(Squares(5), batch_sampler=bs)] == [[0, 1], [2, 3]]


def test_getitems_is_used():
    class Batched(Squares):
        calls = []

        def __getitems__(self, idx):
            self.calls.append(list(idx))
            return [self[i] for i in idx]
    ds = Batched(5)
    list(DataLoader(ds, batch_size=2))
    assert Batched.calls == [[0, 1], [2, 3], [4]]


def test_iterable_dataset_batches():
    dl = DataLoader(Count(7), batch_size=3)
    assert [b.tolist() for b in dl] == [[0, 1, 2], [3, 4, 5], [6]] and len(dl) == 3
    dl = DataLoader(Count(7), batch_size=3, drop_last=True)
    assert [b.tolist() for b in dl] == [[0, 1, 2], [3, 4, 5]] and len(dl) == 2
    assert [int(v) for v in DataLoader(Count(3), batch_size=None)] == [0, 1, 2]


@pytest.mark.parametrize("shuffle", [False, True])
def test_tensor_dataset_fast_path_matches_per_sample_collate(shuffle):
    x = ember.randn(50, 1, 4, 4)
    y = ember.randint(0, 10, (50,))
    fast = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=shuffle, generator=ember.Generator().manual_seed(0))
    slow = DataLoader(PlainTensorDataset(x, y), batch_size=8, shuffle=shuffle,
                      generator=ember.Generator().manual_seed(0))
    xs = x.numpy()
    seen = []
    for fb, sb in zip(fast, slow, strict=True):
        assert isinstance(sb, list) and isinstance(fb, list)  # default_collate makes tuples lists
        (fx, fy), (sx, sy) = fb, sb
        assert fx.dtype == sx.dtype and fy.dtype == sy.dtype and fx.shape == sx.shape and fy.shape == sy.shape
        np.testing.assert_array_equal(fx.numpy(), sx.numpy())
        np.testing.assert_array_equal(fy.numpy(), sy.numpy())
        seen.append(fx.numpy())
    assert sorted(map(float, np.concatenate(seen)[:, 0, 0, 0])) == sorted(map(float, xs[:, 0, 0, 0]))


def test_pin_memory_is_accepted():
    assert [b["i"].tolist() for b in DataLoader(Squares(2), batch_size=2, pin_memory=True)] == [[0, 1]]


def test_argument_checks():
    ds = Squares(4)
    cases = [
        (dict(sampler=[0, 1], shuffle=True), "sampler option is mutually exclusive with shuffle"),
        (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive with batch_size, "
                                                  "shuffle, sampler, and drop_last"),
        (dict(batch_sampler=[[0]], shuffle=True), "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[0]], sampler=[0]), "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler option is mutually exclusive"),
        (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching and is mutually "
                                                "exclusive with drop_last"),
        (dict(prefetch_factor=2), "prefetch_factor option could only be specified in multiprocessing"),
        (dict(num_workers=1, prefetch_factor=-1), "prefetch_factor option should be non-negative"),
        (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
        (dict(num_workers=-1), "num_workers option should be non-negative"),
        (dict(timeout=-1), "timeout option should be non-negative"),
        (dict(batch_size=-3), "batch_size should be a positive integer value, but got batch_size=-3"),
        (dict(batch_size=0), "batch_size should be a positive integer value"),
        (dict(multiprocessing_context="fork"), "multiprocessing_context can only be used with multi-process"),
        (dict(num_workers=1, multiprocessing_context="nope"), "multiprocessing_context option should specify "
                                                              "a valid start method"),
    ]
    for kwargs, msg in cases:
        with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            DataLoader(ds, **kwargs)
    with pytest.raises(TypeError, match="multiprocessing_context option should be a valid context object"):
        DataLoader(ds, num_workers=1, multiprocessing_context=3)


def test_iterable_dataset_option_checks():
    for kwargs, what in ((dict(shuffle=True), "shuffle"), (dict(sampler=[0]), "sampler"),
                         (dict(batch_sampler=[[0]]), "batch_sampler")):
        with pytest.raises(ValueError, match=f"DataLoader with IterableDataset: expected unspecified {what} option"):
            DataLoader(Count(3), **kwargs)


def test_attributes_fixed_after_init():
    dl = DataLoader(Squares(3))
    for attr in ("batch_size", "sampler", "dataset", "drop_last"):
        with pytest.raises(ValueError, match=f"'{attr}' attribute should not be set after DataLoader is initialized"):
            setattr(dl, attr, None)
    dl.timeout = 3  # others are free


def test_tensor_index_batches_take_the_per_sample_path():
    x = ember.arange(12.).reshape(6, 2)
    dl = DataLoader(TensorDataset(x), batch_sampler=[[ember.tensor(4), ember.tensor(1)]])
    (b,), = list(dl)
    assert b.tolist() == [[8.0, 9.0], [2.0, 3.0]]
    with pytest.raises(IndexError):
        list(DataLoader(TensorDataset(x), batch_sampler=[[0, 6]]))
