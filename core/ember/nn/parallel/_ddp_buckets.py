"""How DistributedDataParallel groups parameters into gradient buckets, and finds the tensors in a
forward's output (the roots its reducer searches for unused parameters)."""
from __future__ import annotations

import dataclasses

import ember

DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024  # PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES


def bucket_assignment(params: list, bucket_cap_mb: float, first_bucket_bytes: int = DEFAULT_FIRST_BUCKET_BYTES,
                      order: list[int] | None = None, limits: list[int] | None = None) -> list[list[int]]:
    """Parameter indices per bucket, filled in `order`: by default the reverse of registration (roughly the
    order gradients arrive); after the first iteration, the order they did arrive (PyTorch's bucket rebuild).
    The first bucket is small (at most 1 MiB: its reduction starts early in backward), the others up to
    bucket_cap_mb; or, given limits (bytes, DDP's bucket_cap_mb_list), the k-th bucket closed holds up to
    limits[k] (the last limit for the rest). A bucket holds one dtype, and a parameter larger than its limit
    gets a bucket of its own."""
    cap = int(bucket_cap_mb * 1024 * 1024)
    limits = list(limits) if limits else [min(first_bucket_bytes, cap), cap]
    buckets: list[list[int]] = []
    open_buckets: dict = {}  # dtype -> (indices, bytes)
    limit = limits[0]
    for i in reversed(range(len(params))) if order is None else order:
        p = params[i]
        indices, size = open_buckets.get(p.dtype, ([], 0))
        indices.append(i)
        size += p.numel() * p.element_size()
        if size >= limit:
            buckets.append(indices)
            open_buckets.pop(p.dtype, None)
            limit = limits[min(len(buckets), len(limits) - 1)]
        else:
            open_buckets[p.dtype] = (indices, size)
    buckets.extend(indices for indices, _ in open_buckets.values())
    return buckets


def output_tensors(obj) -> list:
    """Every tensor in a forward's output: tensors, sequences, mappings, dataclasses and namedtuples."""
    found = []

    def visit(o):
        if isinstance(o, ember.Tensor):
            found.append(o)
        elif isinstance(o, (list, tuple)):
            for x in o:
                visit(x)
        elif isinstance(o, dict):
            for x in o.values():
                visit(x)
        elif dataclasses.is_dataclass(o) and not isinstance(o, type):
            for f in dataclasses.fields(o):
                visit(getattr(o, f.name))

    visit(obj)
    return found
