"""Join(divide_by_initial_world_size=False): while some ranks have joined, the others' gradients are averaged over
the ranks still training (PyTorch's effective world size), not over the initial world size; and
ZeroRedundancyOptimizer(overlap_with_ddp=True) with hook_with_zero_step(..., shard_buckets=True): DDP's buckets
cut into runs of parameters spread over the ranks by PyTorch's size-balancing rule. Each on 2 gloo processes
against one process training on the whole batch."""
from __future__ import annotations

import os

import pytest
from dist_launch import free_port, launch

import ddp_rebuild_scenarios as rebuild
import ddp_scenarios as scen
import ember.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without libgloo-dev")

HERE = os.path.dirname(os.path.abspath(__file__))


def _run(module: str, call: str) -> list:
    script = f"import sys; sys.path.insert(0, {HERE!r}); import {module} as s; {call}"
    return launch(script, 2, env={"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port())}, timeout=180)


def test_join_divides_by_the_ranks_still_training():
    ref = scen.join_reference(divide_by_initial_world_size=False)
    by_initial = scen.join_reference()
    assert rebuild.max_diff(ref, by_initial) > 1e-3  # the two rules train differently here
    for r in _run("ddp_scenarios", "s.run_join(divide_by_initial_world_size=False)"):
        assert rebuild.max_diff(r["params"], ref) < 1e-5, r["rank"]


def _sharded_assignment(bucket_sizes: list, world: int) -> list:
    """PyTorch's shard_buckets rule, written out: buckets smallest first; within a bucket, a run of parameters is
    closed before the parameter that would bring it to total / world; each run goes to the least-loaded rank
    (lowest on ties) that has no other run of that bucket. Returns, per rank, the (bucket, position) pairs."""
    threshold = sum(map(sum, bucket_sizes)) / world
    load = [0] * world
    owned: list = [[] for _ in range(world)]
    for b in sorted(range(len(bucket_sizes)), key=lambda i: sum(bucket_sizes[i])):
        sizes, used, runs, start, size = bucket_sizes[b], set(), [], 0, 0
        for i, n in enumerate(sizes):
            if size + n >= threshold and i > start:
                runs.append((start, i, size))
                start, size = i, 0
            size += n
        runs.append((start, len(sizes), size))
        for begin, end, run_size in runs:
            rank = min((r for r in range(world) if r not in used), key=lambda r: (load[r], r))
            used.add(rank)
            load[rank] += run_size
            owned[rank] += [(b, i) for i in range(begin, end)]
    return owned


@pytest.mark.parametrize("interleaved", [False, True], ids=["hook_with_zero_step", "interleaved"])
def test_zero_overlap_with_sharded_buckets_equals_single_process(interleaved):
    ref = rebuild.single_process("adam", first_update=2)
    results = _run("ddp_rebuild_scenarios", "s.run_zero_overlap('adam', shard_buckets=True, cap_mb=0.0012, "
                                            f"interleaved={interleaved})")
    sizes = [p.numel() for p in rebuild.OutOfOrder().parameters()]
    buckets = results[0]["buckets"]
    assert len(buckets) == 2 and any(len(b) > 2 for b in buckets)  # a bucket spans layers, so it gets cut
    expected = _sharded_assignment([[sizes[i] for i in b] for b in buckets], 2)
    for r in results:
        assert r["buckets"] == buckets
        assert rebuild.max_diff(r["params"], ref) < 1e-5, r["rank"]
        assert r["owned"] == sorted(buckets[b][i] for b, i in expected[r["rank"]])
        assert r["stateful"] == r["owned"]
    # some bucket is split between the two ranks (what shard_buckets is for)
    assert any(all(any(b == k for b, _ in expected[rank]) for rank in range(2)) for k in range(len(buckets)))
    assert results[0]["state_keys"] == list(range(6))  # the consolidated state loads into a plain Adam
