"""Collectives of picklable Python objects (all_gather_object, broadcast_object_list, scatter_object_list,
gather_object), as torch.distributed's: each object is pickled to bytes, the byte counts go first, then the
bytes, padded to the largest count, through the tensor collectives."""
from __future__ import annotations

import io
import pickle

import numpy as np

import ember
from ember.distributed.collectives import gather, scatter
from ember.distributed.distributed_c10d import _group, _not_in_group, _root, all_gather, broadcast, get_rank

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"]


def _to_bytes(obj) -> bytes:
    f = io.BytesIO()
    pickle.Pickler(f).dump(obj)
    return f.getvalue()


def _padded(data: bytes, size: int):
    out = np.zeros(size, dtype=np.uint8)
    out[:len(data)] = np.frombuffer(data, dtype=np.uint8)
    return ember.from_numpy(out)


def _load(tensor, size: int):
    return pickle.loads(tensor.numpy()[:size].tobytes())


def _sizes_everywhere(pg, group, n: int) -> list[int]:
    mine = ember.tensor([n], dtype=ember.int64)
    sizes = [ember.zeros(1, dtype=ember.int64) for _ in range(pg.size())]
    all_gather(sizes, mine, group=group)
    return [int(s.item()) for s in sizes]


def all_gather_object(object_list, obj, group=None) -> None:
    """object_list (one slot per rank) receives every rank's obj, in rank order."""
    if _not_in_group(group, "all_gather_object"):
        return
    pg = _group(group)
    data = _to_bytes(obj)
    sizes = _sizes_everywhere(pg, group, len(data))
    width = max(sizes)
    out = [ember.zeros(width, dtype=ember.uint8) for _ in range(pg.size())]
    all_gather(out, _padded(data, width), group=group)
    for i, (t, n) in enumerate(zip(out, sizes)):
        object_list[i] = _load(t, n)


def gather_object(obj, object_gather_list=None, dst: int | None = None, group=None,
                  group_dst: int | None = None) -> None:
    """object_gather_list on dst receives every rank's obj, in rank order."""
    if _not_in_group(group, "gather_object"):
        return
    pg = _group(group)
    if dst is None and group_dst is None:
        dst = 0
    root = _root(pg, dst, group_dst, "gather", "dst")
    if pg.rank() == root and (object_gather_list is None or len(object_gather_list) != pg.size()):
        raise ValueError("Argument ``object_gather_list`` must be specified on destination rank and be a list of "
                         "world_size elements.")
    if pg.rank() != root and object_gather_list is not None:
        raise ValueError("Argument ``object_gather_list`` must NOT be specified on non-destination ranks.")
    data = _to_bytes(obj)
    sizes = _sizes_everywhere(pg, group, len(data))
    width = max(sizes)
    out = [ember.zeros(width, dtype=ember.uint8) for _ in range(pg.size())] if pg.rank() == root else None
    gather(_padded(data, width), out, group=group, group_dst=root)
    if pg.rank() == root:
        for i, (t, n) in enumerate(zip(out, sizes)):
            object_gather_list[i] = _load(t, n)


def broadcast_object_list(object_list, src: int | None = None, group=None, device=None,
                          group_src: int | None = None) -> None:
    """object_list on every rank becomes src's list (of the same length everywhere)."""
    if _not_in_group(group, "broadcast_object_list"):
        return
    pg = _group(group)
    if src is None and group_src is None:
        src = 0
    root = _root(pg, src, group_src, "broadcast", "src")
    is_root = pg.rank() == root
    blobs = [_to_bytes(o) for o in object_list] if is_root else []
    sizes = ember.tensor([len(b) for b in blobs] if is_root else [0] * len(object_list), dtype=ember.int64)
    broadcast(sizes, group=group, group_src=root)
    counts = [int(n) for n in sizes.tolist()]
    payload = _padded(b"".join(blobs), sum(counts)) if is_root else ember.zeros(sum(counts), dtype=ember.uint8)
    broadcast(payload, group=group, group_src=root)
    if not is_root:
        flat, offset = payload.numpy(), 0
        for i, n in enumerate(counts):
            object_list[i] = pickle.loads(flat[offset:offset + n].tobytes())
            offset += n


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src: int | None = None,
                        group=None, group_src: int | None = None) -> None:
    """scatter_object_output_list[0] on rank r becomes src's scatter_object_input_list[r]."""
    if _not_in_group(group, "scatter_object_list"):
        return
    pg = _group(group)
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    if src is None and group_src is None:
        src = 0
    root = _root(pg, src, group_src, "scatter", "src")
    is_root = pg.rank() == root
    if is_root and (scatter_object_input_list is None or len(scatter_object_input_list) != pg.size()):
        raise ValueError("Argument ``scatter_object_input_list`` must be a list of world_size objects on the source "
                         f"rank (rank {get_rank()}).")
    blobs = [_to_bytes(o) for o in scatter_object_input_list] if is_root else []
    width = ember.tensor([max(len(b) for b in blobs) if is_root else 0], dtype=ember.int64)
    broadcast(width, group=group, group_src=root)
    w = int(width.item())
    size = ember.zeros(1, dtype=ember.int64)
    scatter(size, [ember.tensor([len(b)], dtype=ember.int64) for b in blobs] if is_root else None, group=group,
            group_src=root)
    out = ember.zeros(w, dtype=ember.uint8)
    scatter(out, [_padded(b, w) for b in blobs] if is_root else None, group=group, group_src=root)
    scatter_object_output_list[0] = _load(out, int(size.item()))
