"""ember.distributed's collectives beyond the basic four, on 2 and 4 gloo processes, against NumPy computed here
from every rank's inputs: reductions for every dtype and op gloo allows (float16/bfloat16/bool/complex too),
gather/scatter/reduce_scatter(_tensor)/all_gather_into_tensor/all_to_all(_single) with uneven splits, new_group
(collectives inside a subgroup, non-members, rank translation), point to point (send/recv, any-source recv,
batch_isend_irecv), object collectives, and Work futures."""
from __future__ import annotations

import numpy as np
import pytest
from dist_launch import launch, launch_mpi, mpiexec

import ember.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without libgloo-dev")
BACKENDS = ["gloo", pytest.param("mpi", marks=pytest.mark.skipif(
    not dist.is_mpi_available() or mpiexec() is None, reason="built without the mpich wheel"))]

REDUCE_OPS = {"float16": ["SUM", "PRODUCT", "MIN", "MAX", "AVG"], "bfloat16": ["SUM", "PRODUCT", "MIN", "MAX", "AVG"],
              "bool": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"],
              "int8": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"],
              "uint8": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"],
              "complex64": ["SUM", "AVG"]}
NP_OPS = {"SUM": np.add, "PRODUCT": np.multiply, "MIN": np.minimum, "MAX": np.maximum, "BAND": np.bitwise_and,
          "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}


def inputs(rank: int, dtype: str, shape=(4, 3)) -> np.ndarray:
    """Each rank's input (the workers compute the same): small values keep products exact in every dtype."""
    rng = np.random.default_rng(7 + rank)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype in ("int8", "uint8", "int32", "int64"):
        return rng.integers(0 if dtype == "uint8" else -3, 4, size=shape).astype(dtype)
    if dtype == "complex64":
        return (rng.integers(-4, 5, size=shape) + 1j * rng.integers(-4, 5, size=shape)).astype(np.complex64)
    halves = rng.integers(-4, 5, size=shape) / 2  # exact in float16 and bfloat16
    return halves.astype(np.float64 if dtype == "float64" else np.float32)


_WORKER = '''
import json, os
from datetime import timedelta
import numpy as np
import ember, ember.distributed as dist
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
exec(os.environ["INPUTS_SRC"])
if os.environ.get("BACKEND") == "mpi":  # rank and world size from MPI
    dist.init_process_group("mpi")
else:
    dist.init_process_group("gloo", init_method=os.environ["INIT"], rank=rank, world_size=world,
                            timeout=timedelta(seconds=60))
ops = json.loads(os.environ["REDUCE_OPS"])
out = {}
def T(a, dtype=None):
    t = ember.from_numpy(np.ascontiguousarray(a.astype(np.float32) if dtype in ("float16", "bfloat16") else a))
    return t.to(getattr(ember, dtype)) if dtype in ("float16", "bfloat16") else t
def L(t):
    if t.dtype in (ember.float16, ember.bfloat16):
        t = t.float()
    a = t.numpy()
    return [a.real.tolist(), a.imag.tolist()] if np.iscomplexobj(a) else a.tolist()
for dtype, names in ops.items():
    for op in names:
        t = T(inputs(rank, dtype), dtype)
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        out[f"all_reduce/{dtype}/{op}"] = L(t)
    t = T(inputs(rank, dtype), dtype)
    dist.reduce(t, dst=world - 1, op=dist.ReduceOp.SUM)
    if rank == world - 1:
        out[f"reduce/{dtype}"] = L(t)
# gather / scatter to and from the last rank, of every byte width
for dtype in ["float64", "int32", "bfloat16", "bool", "complex64"]:
    x = T(inputs(rank, dtype), dtype)
    bucket = [T(np.zeros((4, 3), dtype=np.float32 if dtype in ("float16", "bfloat16") else dtype), dtype)
              for _ in range(world)] if rank == world - 1 else None
    dist.gather(x, bucket, dst=world - 1)
    if rank == world - 1:
        out[f"gather/{dtype}"] = [L(b) for b in bucket]
    got = T(np.zeros((4, 3), dtype=np.float32 if dtype in ("float16", "bfloat16") else dtype), dtype)
    parts = [T(inputs(10 + r, dtype), dtype) for r in range(world)] if rank == world - 1 else None
    dist.scatter(got, parts, src=world - 1)
    out[f"scatter/{dtype}"] = L(got)
# reduce_scatter: rank r keeps the reduction of every rank's r-th input
mine = ember.zeros(4, 3)
dist.reduce_scatter(mine, [T(inputs(rank * world + j, "float32")) for j in range(world)], op=dist.ReduceOp.MAX)
out["reduce_scatter/MAX"] = L(mine)
mine = ember.zeros(2, 3)
dist.reduce_scatter_tensor(mine, T(inputs(rank, "float32", (2 * world, 3))), op=dist.ReduceOp.AVG)
out["reduce_scatter_tensor/AVG"] = L(mine)
stacked = ember.zeros(world * 4, 3, dtype=ember.int64)
dist.all_gather_into_tensor(stacked, T(inputs(rank, "int8").astype(np.int64)))
out["all_gather_into_tensor"] = L(stacked)
# all_to_all_single with uneven splits: rank r sends (j + 1) rows to rank j, receives (r + 1) from each
rows_out = [rank + 1] * world
src = T(np.arange(sum(j + 1 for j in range(world)) * 2, dtype=np.float64).reshape(-1, 2) + 100 * rank)
dst = ember.zeros(sum(rows_out), 2, dtype=ember.float64)
dist.all_to_all_single(dst, src, output_split_sizes=rows_out, input_split_sizes=[j + 1 for j in range(world)])
out["all_to_all_single/uneven"] = L(dst)
even = ember.zeros(world, 3, dtype=ember.int32)
dist.all_to_all_single(even, T(inputs(rank, "int8", (world, 3)).astype(np.int32)))
out["all_to_all_single/even"] = L(even)
outs = [ember.zeros(j + 1, dtype=ember.int64) for j in range(world)]
dist.all_to_all(outs, [ember.full((rank + 1,), 10 * rank + j, dtype=ember.int64) for j in range(world)])
out["all_to_all"] = [L(o) for o in outs]
# point to point: a ring of sends, then an any-source receive on rank 0, then a batch
nxt, prv = (rank + 1) % world, (rank - 1) % world
buf = ember.zeros(5, dtype=ember.float64)
ops_ = [dist.P2POp(dist.isend, T(np.full(5, float(rank))), nxt, tag=3), dist.P2POp(dist.irecv, buf, prv, tag=3)]
for w in dist.batch_isend_irecv(ops_):
    w.wait()
out["ring"] = L(buf)
if rank == 0:
    senders = []
    for _ in range(world - 1):
        b = ember.zeros(2, dtype=ember.int64)
        s = dist.recv(b, tag=9)
        senders.append([s, L(b)])
    out["any_source"] = sorted(senders)
else:
    dist.send(ember.tensor([rank, rank * rank], dtype=ember.int64), dst=0, tag=9)
# a subgroup of the odd ranks (rank 1 alone on 2 processes), and one of ranks {0, world-1} in reverse order
odd = dist.new_group([r for r in range(world) if r % 2 == 1])
ends = dist.new_group([world - 1, 0], sort_ranks=False)
if rank % 2 == 1:
    t = T(np.full(3, float(rank)))
    dist.all_reduce(t, group=odd)
    out["odd/all_reduce"] = L(t)
    out["odd/rank"] = [dist.get_rank(odd), dist.get_world_size(odd), dist.get_global_rank(odd, 0)]
else:
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dist.all_reduce(ember.ones(1), group=odd) is None
    out["odd/non_member"] = [odd == dist.GroupMember.NON_GROUP_MEMBER, dist.get_rank(odd), str(caught[0].message)]
if rank in (0, world - 1):
    t = T(np.full(2, float(rank)))
    dist.broadcast(t, src=0, group=ends)  # src is a global rank
    out["ends"] = [L(t), dist.get_rank(ends), dist.get_group_rank(ends, 0)]
    objs = [None, None]
    dist.all_gather_object(objs, {"rank": rank}, group=ends)
    out["ends/objects"] = objs
# object collectives on the world
objs = [None] * world
dist.all_gather_object(objs, {"rank": rank, "data": list(range(rank))})
out["all_gather_object"] = objs
lst = [("x", world), {"y": [1.5]}, None] if rank == 1 else [None, None, None]
dist.broadcast_object_list(lst, src=1)
out["broadcast_object_list"] = [lst[0][0], lst[0][1], lst[1], lst[2]]
got = [None]
dist.scatter_object_list(got, [f"to {r}" * (r + 1) for r in range(world)] if rank == 0 else None, src=0)
out["scatter_object_list"] = got[0]
gathered = [None] * world if rank == world - 1 else None
dist.gather_object(("from", rank), gathered, dst=world - 1)
if rank == world - 1:
    out["gather_object"] = [list(g) for g in gathered]
# futures
t = T(np.full(3, float(rank + 1)))
w = dist.all_reduce(t, async_op=True)
fut = w.get_future()
chained = fut.then(lambda f: f.value()[0].sum().item())
out["future"] = [L(fut.wait()[0]), chained.wait(), w.is_completed(), w.exception() is None]
if dist.get_backend() == "gloo":  # PyTorch's monitored_barrier is gloo's only
    dist.monitored_barrier(timeout=timedelta(seconds=30), wait_all_ranks=True)
dist.destroy_process_group()
print(json.dumps(out))
'''


def _launch(world: int, tmp_path, backend: str) -> list:
    import inspect
    import json
    src = "import numpy as np\n" + inspect.getsource(inputs)
    env = {"INIT": f"file://{tmp_path}/rendezvous", "INPUTS_SRC": src, "REDUCE_OPS": json.dumps(REDUCE_OPS)}
    if backend == "mpi":
        return launch_mpi(_WORKER, world, env, timeout=240)
    return launch(_WORKER, world, env, timeout=240)


def _as_np(value, dtype: str) -> np.ndarray:
    if dtype == "complex64":
        return np.array(value[0]) + 1j * np.array(value[1])
    return np.array(value)


def _reduced(xs, dtype: str, op: str):
    if dtype == "bool":  # PyTorch: SUM/MAX are a logical or, PRODUCT/MIN a logical and
        op = {"SUM": "BOR", "MAX": "BOR", "PRODUCT": "BAND", "MIN": "BAND"}.get(op, op)
    if op == "AVG":
        return np.add.reduce(xs) / len(xs)
    return NP_OPS[op].reduce(xs)


def _check(results: list, world: int):
    last = world - 1
    for rank, out in enumerate(results):
        for dtype, names in REDUCE_OPS.items():
            xs = [inputs(r, dtype) for r in range(world)]
            for op in names:
                expected = _reduced(xs, dtype, op)
                if dtype in ("float16", "bfloat16"):
                    expected = expected.astype(np.float32)
                    rtol = 1e-2
                else:
                    rtol = 0
                np.testing.assert_allclose(_as_np(out[f"all_reduce/{dtype}/{op}"], dtype), expected, rtol=rtol,
                                           atol=rtol, err_msg=f"all_reduce {dtype} {op} on rank {rank}")
            if rank == last:
                np.testing.assert_allclose(_as_np(out[f"reduce/{dtype}"], dtype), _reduced(xs, dtype, "SUM"),
                                           rtol=1e-2 if "float16" in dtype else 0)
        for dtype in ["float64", "int32", "bfloat16", "bool", "complex64"]:
            if rank == last:
                for r in range(world):
                    np.testing.assert_array_equal(_as_np(out[f"gather/{dtype}"][r], dtype), inputs(r, dtype))
            np.testing.assert_array_equal(_as_np(out[f"scatter/{dtype}"], dtype), inputs(10 + rank, dtype))
        np.testing.assert_array_equal(out["reduce_scatter/MAX"],
                                      np.maximum.reduce([inputs(r * world + rank, "float32") for r in range(world)]))
        full = [inputs(r, "float32", (2 * world, 3)) for r in range(world)]
        average = np.add.reduce(full) / world
        np.testing.assert_allclose(out["reduce_scatter_tensor/AVG"], average[2 * rank:2 * rank + 2], rtol=1e-6)
        np.testing.assert_array_equal(out["all_gather_into_tensor"],
                                      np.concatenate([inputs(r, "int8") for r in range(world)]))
        expected = []
        for j in range(world):  # rank j's rows for this rank start after the (i + 1) rows it sends to i < rank
            first = sum(i + 1 for i in range(rank))
            rows = np.arange(sum(i + 1 for i in range(world)) * 2, dtype=np.float64).reshape(-1, 2) + 100 * j
            expected.append(rows[first:first + rank + 1])
        np.testing.assert_array_equal(out["all_to_all_single/uneven"], np.concatenate(expected))
        np.testing.assert_array_equal(out["all_to_all_single/even"],
                                      np.stack([inputs(j, "int8", (world, 3))[rank] for j in range(world)]))
        assert out["all_to_all"] == [[10 * j + rank] * (j + 1) for j in range(world)]
        assert out["ring"] == [float((rank - 1) % world)] * 5
        if rank == 0:
            assert out["any_source"] == [[r, [r, r * r]] for r in range(1, world)]
        odd = [r for r in range(world) if r % 2 == 1]
        if rank % 2:
            assert out["odd/all_reduce"] == [float(sum(odd))] * 3
            assert out["odd/rank"] == [odd.index(rank), len(odd), odd[0]]
        else:
            assert out["odd/non_member"] == [True, -1, f"Running all_reduce on global rank {rank} which does not "
                                                       f"belong to the given group."]
        if rank in (0, last):
            assert out["ends"] == [[0.0, 0.0], 0 if rank == last else 1, 1]
            assert out["ends/objects"] == [{"rank": last}, {"rank": 0}]
        assert out["all_gather_object"] == [{"rank": r, "data": list(range(r))} for r in range(world)]
        assert out["broadcast_object_list"] == ["x", world, {"y": [1.5]}, None]
        assert out["scatter_object_list"] == f"to {rank}" * (rank + 1)
        if rank == last:
            assert out["gather_object"] == [["from", r] for r in range(world)]
        total = sum(range(1, world + 1))
        assert out["future"] == [[float(total)] * 3, 3.0 * total, True, True]


@pytest.mark.parametrize("backend", BACKENDS)
def test_collectives_two_processes(tmp_path, backend):
    _check(_launch(2, tmp_path, backend), 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_collectives_four_processes(tmp_path, backend):
    _check(_launch(4, tmp_path, backend), 4)
