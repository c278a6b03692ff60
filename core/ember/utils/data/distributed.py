"""DistributedSampler: each of `num_replicas` processes gets a disjoint, equally long slice of
the (optionally shuffled, padded or truncated) indices, as in PyTorch."""
from __future__ import annotations

import math
from typing import Iterator

import ember

from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _dist():
    # A build without ember.distributed raises PyTorch's "not available" error; with it, asking for the rank
    # before init_process_group raises ember.distributed's ValueError, as PyTorch does.
    try:
        import ember.distributed as dist
    except ImportError:
        return None
    return dist if getattr(dist, "is_available", lambda: False)() else None


class DistributedSampler(Sampler):
    """Without drop_last the index list is padded by repeating its head so it divides evenly;
    with drop_last the tail is cut. Shuffling uses seed + epoch: call set_epoch each epoch."""

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            dist = _dist()
            if dist is None:
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if self.drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            g = ember.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = ember.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        mine = indices[self.rank:self.total_size:self.num_replicas]
        assert len(mine) == self.num_samples
        return iter(mine)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch
