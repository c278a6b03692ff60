"""What every DataLoader iterator shares (the sampler, the base seed, the count of batches given), and
the iterator that loads in the calling process. Kept apart from dataloader.py so that the worker
iterator (_multiprocessing_iter.py) builds on it without importing the DataLoader."""
from __future__ import annotations

import ember
from ember import _profiler_hooks

from . import _fetch


class _BaseDataLoaderIter:
    def __init__(self, loader) -> None:
        self._dataset = loader.dataset
        self._is_iterable = loader._dataset_kind_iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # Drawn whether or not there are workers, so a seed gives the same sampler order either way.
        self._base_seed = int(ember.empty((), dtype=ember.int64).random_(generator=loader.generator).item())
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        if _profiler_hooks.state.recording:  # PyTorch's name for the fetch in a profile
            with _profiler_hooks.Range(f"enumerate(DataLoader)#{type(self).__name__}.__next__"):
                data = self._next_data()
        else:
            data = self._next_data()
        self._num_yielded += 1
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._fetcher = _fetch.create_fetcher(self._is_iterable, self._dataset, self._auto_collation,
                                              self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()  # StopIteration ends the epoch
        return self._fetcher.fetch(index)
