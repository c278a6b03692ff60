"""Fetchers: turn what the sampler yields (an index, a list of indices, or None for iterable
datasets) into a (collated) batch. Shared by the main process and the workers."""
from __future__ import annotations

from .collate import default_collate


class _MapDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self._gather = _tensor_gather(dataset) if auto_collation and collate_fn is default_collate else None
        getitems = getattr(dataset, "__getitems__", None)
        self._getitems = getitems if callable(getitems) else None

    def fetch(self, possibly_batched_index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[possibly_batched_index])
        if self._gather is not None:
            return self._gather(possibly_batched_index)
        if self._getitems is not None:
            data = self._getitems(possibly_batched_index)
        else:
            data = [self.dataset[i] for i in possibly_batched_index]
        return self.collate_fn(data)


class _IterableDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in possibly_batched_index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(possibly_batched_index)):
            raise StopIteration
        return self.collate_fn(data)


def create_fetcher(is_iterable: bool, dataset, auto_collation: bool, collate_fn, drop_last: bool):
    cls = _IterableDatasetFetcher if is_iterable else _MapDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


def _tensor_gather(dataset):
    """For a plain TensorDataset under default_collate: one advanced-index gather per tensor gives
    exactly what stacking the per-sample rows would (same values, dtype and shape), without the
    per-sample indexing and the 64-way stack. None when the dataset is anything else."""
    import ember
    from .dataset import TensorDataset
    if type(dataset) is not TensorDataset:  # a subclass may override __getitem__
        return None
    tensors = dataset.tensors
    if not tensors or any(not isinstance(t, ember.Tensor) or t.dim() == 0 for t in tensors):
        return None
    n = len(dataset)

    def gather(indices):
        # Only plain int lists: anything else (tensors, slices...) takes the per-sample path.
        if not isinstance(indices, list) or not indices or any(type(i) is not int for i in indices):
            return default_collate([dataset[i] for i in indices])
        idx = ember.tensor(indices, dtype=ember.int64)
        lo, hi = int(idx.min()), int(idx.max())
        if lo < -n or hi >= n:  # let per-sample indexing raise its own IndexError
            return default_collate([dataset[i] for i in indices])
        return [t[idx] for t in tensors]  # a list: default_collate turns tuple samples into lists
    return gather
