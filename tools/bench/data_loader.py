"""DataLoader throughput (issue target: >= 20,000 samples/s with 2 workers at batch 64 over an
in-memory 60000x1x28x28 float32 TensorDataset), beside torch.utils.data when importable. One
measurement is one full shuffled epoch, worker start-up included."""
from __future__ import annotations

import functools
import time

import ember

from .runner import Case, ember_and_torch, torch

N = 60000


@functools.lru_cache(maxsize=None)
def _data(lib):
    t = ember if lib == "ember" else torch
    t.manual_seed(0)
    return t.randn(N, 1, 28, 28), t.randint(0, 10, (N,))


def _per_sample_dataset(lib):
    """A plain map-style dataset (per-sample __getitem__ + default_collate: no batched gather)."""
    data = ember.utils.data if lib == "ember" else torch.utils.data
    x, y = _data(lib)

    class Rows(data.Dataset):
        def __len__(self):
            return N

        def __getitem__(self, i):
            return x[i], y[i]
    return Rows()


def _epoch(num_workers, per_sample):
    def factory(lib):
        if lib == "ember":
            import ember.utils.data as data
        else:
            import torch.utils.data as data
        ds = _per_sample_dataset(lib) if per_sample else data.TensorDataset(*_data(lib))
        kwargs = {"num_workers": num_workers}

        def run():
            t0 = time.perf_counter()
            n = 0
            for xb, _ in data.DataLoader(ds, batch_size=64, shuffle=True, **kwargs):
                n += xb.shape[0]
            return n / (time.perf_counter() - t0)
        return run
    return factory


def cases():
    return [
        Case("loader 2 workers b64 28x28", "sample/s", True, ember_and_torch(_epoch(2, False)),
             ">= 20000 samples/s",
             lambda e, p: e >= 20000),
        Case("loader 2 workers b64 per-sample", "sample/s", True, ember_and_torch(_epoch(2, True)),
             ">= 20000 samples/s",
             lambda e, p: e >= 20000),
        Case("loader 0 workers b64 28x28", "sample/s", True, ember_and_torch(_epoch(0, False))),
    ]
