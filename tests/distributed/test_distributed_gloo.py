"""ember.distributed on gloo: init_process_group's three init methods, the collectives on 2 (and 4) processes
against NumPy computed from every rank's inputs, async Work handles, argument errors, and a dead peer
making the survivor raise instead of hanging."""
from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from dist_launch import free_port, launch, launch_mpi, mpiexec

import ember
import ember.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without libgloo-dev")

DTYPES = ["float32", "float64", "int32", "int64"]
FLOAT_OPS = ["SUM", "PRODUCT", "MIN", "MAX", "AVG"]
INT_OPS = ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]


def _inputs(rank: int, dtype: str) -> np.ndarray:
    """Each rank's input, known to the test and the workers alike (small values: products stay exact)."""
    rng = np.random.default_rng(100 + rank)
    if dtype.startswith("float"):
        return rng.uniform(-2, 2, size=(3, 5)).astype(dtype)
    return rng.integers(-7, 8, size=(3, 5)).astype(dtype)


_PRELUDE = """
import json, os
from datetime import timedelta
import numpy as np
import ember, ember.distributed as dist
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
def inputs(rank, dtype):
    rng = np.random.default_rng(100 + rank)
    if dtype.startswith("float"):
        return rng.uniform(-2, 2, size=(3, 5)).astype(dtype)
    return rng.integers(-7, 8, size=(3, 5)).astype(dtype)
"""

_COLLECTIVES = _PRELUDE + """
if os.environ.get("BACKEND") == "mpi":  # rank and world size from MPI
    dist.init_process_group("mpi")
else:
    dist.init_process_group("gloo", init_method=os.environ["INIT"], rank=rank if "file" in os.environ["INIT"] else -1,
                            world_size=world if "file" in os.environ["INIT"] else -1, timeout=timedelta(seconds=60))
out = {"rank": dist.get_rank(), "world": dist.get_world_size(), "backend": dist.get_backend()}
for dtype in ["float32", "float64", "int32", "int64"]:
    ops = ["SUM", "PRODUCT", "MIN", "MAX", "AVG"] if dtype.startswith("float") else [
        "SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
    for op in ops:
        t = ember.tensor(inputs(rank, dtype))
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        out[f"all_reduce/{dtype}/{op}"] = t.tolist()
    t = ember.tensor(inputs(rank, dtype))
    dist.broadcast(t, src=world - 1)
    out[f"broadcast/{dtype}"] = t.tolist()
    t = ember.tensor(inputs(rank, dtype))
    dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)
    if rank == 0:
        out[f"reduce/{dtype}"] = t.tolist()
    gathered = [ember.zeros(3, 5, dtype=getattr(ember, dtype)) for _ in range(world)]
    dist.all_gather(gathered, ember.tensor(inputs(rank, dtype)))
    out[f"all_gather/{dtype}"] = [g.tolist() for g in gathered]
# non-contiguous: the transpose is reduced in place through a copy
t = ember.tensor(inputs(rank, "float64")).t()
dist.all_reduce(t)
out["all_reduce/transposed"] = t.tolist()
# async: two collectives in flight, then waited in order
a, b = ember.tensor(inputs(rank, "float32")), ember.tensor(inputs(rank, "int64"))
wa = dist.all_reduce(a, async_op=True)
wb = dist.all_reduce(b, op=dist.ReduceOp.MAX, async_op=True)
out["async_wait"] = [wa.wait(), wb.wait()]
out["async_done"] = [wa.is_completed(), wb.is_completed(), wa.is_success()]
out["async/float32"], out["async/int64"] = a.tolist(), b.tolist()
wc = dist.barrier(async_op=True)
wc.wait(timeout=timedelta(seconds=60))
dist.barrier()
dist.destroy_process_group()
out["initialized_after_destroy"] = dist.is_initialized()
print(json.dumps(out))
"""

_REDUCE = {"SUM": np.add, "PRODUCT": np.multiply, "MIN": np.minimum, "MAX": np.maximum, "BAND": np.bitwise_and,
           "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}


def _expected_all_reduce(world: int, dtype: str, op: str) -> np.ndarray:
    xs = [_inputs(r, dtype) for r in range(world)]
    if op == "AVG":
        return np.add.reduce(xs) / world
    return _REDUCE[op].reduce(xs)


def _check_collectives(results: list, world: int, backend: str = "gloo"):
    for rank, out in enumerate(results):
        assert (out["rank"], out["world"], out["backend"]) == (rank, world, backend)
        for dtype in DTYPES:
            exact = not dtype.startswith("float")
            rtol = 0 if exact else (1e-5 if dtype == "float32" else 1e-12)
            for op in FLOAT_OPS if not exact else INT_OPS:
                got = np.array(out[f"all_reduce/{dtype}/{op}"])
                np.testing.assert_allclose(got, _expected_all_reduce(world, dtype, op), rtol=rtol, atol=rtol,
                                           err_msg=f"all_reduce {dtype} {op} rank {rank}")
            np.testing.assert_array_equal(out[f"broadcast/{dtype}"], _inputs(world - 1, dtype))
            np.testing.assert_array_equal(out[f"all_gather/{dtype}"], [_inputs(r, dtype) for r in range(world)])
            if rank == 0:
                np.testing.assert_array_equal(out[f"reduce/{dtype}"],
                                              np.maximum.reduce([_inputs(r, dtype) for r in range(world)]))
        np.testing.assert_allclose(out["all_reduce/transposed"], _expected_all_reduce(world, "float64", "SUM").T,
                                   rtol=1e-12)
        assert out["async_wait"] == [True, True] and out["async_done"] == [True, True, True]
        np.testing.assert_allclose(out["async/float32"], _expected_all_reduce(world, "float32", "SUM"), rtol=1e-5)
        np.testing.assert_array_equal(out["async/int64"], _expected_all_reduce(world, "int64", "MAX"))
        assert out["initialized_after_destroy"] is False


@pytest.mark.parametrize("init", ["file", "tcp", "env"])
def test_collectives_two_processes(init, tmp_path):
    port = free_port()
    env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
    env["INIT"] = {"file": f"file://{tmp_path}/rendezvous", "tcp": f"tcp://127.0.0.1:{port}?rank=RANK",
                   "env": "env://"}[init]
    if init == "tcp":  # the query carries each process's rank
        script = _COLLECTIVES.replace('os.environ["INIT"]', 'os.environ["INIT"].replace("RANK", str(rank)) + '
                                      '"&world_size=" + str(world)', 1)
    else:
        script = _COLLECTIVES
    _check_collectives(launch(script, 2, env, timeout=180), 2)


def test_collectives_four_processes(tmp_path):
    _check_collectives(launch(_COLLECTIVES, 4, {"INIT": f"file://{tmp_path}/rendezvous"}, timeout=240), 4)


@pytest.mark.skipif(not dist.is_mpi_available() or mpiexec() is None, reason="built without the mpich wheel")
@pytest.mark.parametrize("world", [2, 4])
def test_collectives_on_mpi(world):
    _check_collectives(launch_mpi(_COLLECTIVES, world, timeout=240), world, "mpi")


_PEER_DIES = _PRELUDE + """
dist.init_process_group("gloo", init_method=os.environ["INIT"], rank=rank, world_size=world,
                        timeout=timedelta(seconds=8))
dist.barrier()
if rank == 1:
    os._exit(3)  # dies without a goodbye
t = ember.ones(1000)
try:
    dist.all_reduce(t)
    print(json.dumps({"raised": None}))
except dist.DistError as e:
    print(json.dumps({"raised": type(e).__name__, "message": str(e)}))
"""


def test_dead_peer_makes_the_survivor_raise(tmp_path):
    import subprocess
    import sys
    env = {"INIT": f"file://{tmp_path}/rendezvous"}
    # launch() expects every process to succeed; rank 1 exits on purpose, so run the two by hand.
    import os
    procs = [subprocess.Popen([sys.executable, "-c", _PEER_DIES], env=dict(os.environ, RANK=str(r), WORLD_SIZE="2",
                                                                          **env),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(2)]
    try:
        out0, err0 = procs[0].communicate(timeout=60)  # bounded: a hang fails the test here
        procs[1].communicate(timeout=60)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert procs[1].returncode == 3 and procs[0].returncode == 0, err0
    import json
    result = json.loads(out0.strip().splitlines()[-1])
    assert result["raised"] == "DistBackendError", (out0, err0)
    assert ("all_reduce (collective #1 of this group) failed on rank 0 of 2; rank(s) 1 did not take part"
            in result["message"])


# Single-process checks: argument errors before and after init (a one-rank group over a HashStore).

def test_not_initialized_errors():
    assert not dist.is_initialized()
    msg = "Default process group has not been initialized"
    for call in (dist.get_rank, dist.get_world_size, dist.get_backend, lambda: dist.all_reduce(ember.ones(1))):
        with pytest.raises(ValueError, match=msg):
            call()


def test_init_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="Cannot specify both init_method and store."):
        dist.init_process_group("gloo", init_method=f"file://{tmp_path}/f", store=dist.HashStore(), rank=0,
                                world_size=1)
    with pytest.raises(ValueError, match="Unknown backend type foo"):
        dist.init_process_group("foo", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(RuntimeError, match="doesn't have NCCL built in"):
        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(ValueError, match="world_size must be positive if using store"):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0)
    with pytest.raises(ValueError, match="tcp:// rendezvous: rank parameter missing"):
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="rank must be in"):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=1, world_size=1)
    assert not dist.is_initialized()


@pytest.fixture
def one_rank_group():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1, timeout=timedelta(seconds=30))
    yield
    dist.destroy_process_group()


def test_one_rank_group(one_rank_group):
    with pytest.raises(ValueError, match="initialize the default process group twice"):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ember.tensor(x)
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    np.testing.assert_array_equal(t.numpy(), x)
    with pytest.raises(RuntimeError, match="invalid root rank: 3"):
        dist.broadcast(t, src=3)
    with pytest.raises(RuntimeError, match="Cannot use ReduceOp.BAND with non-integral dtype"):
        dist.all_reduce(t, op=dist.ReduceOp.BAND)
    with pytest.raises(RuntimeError, match="unsupported dtype ember.int16"):  # PyTorch's gloo rejects int16 too
        dist.all_reduce(ember.ones(2, dtype=ember.int16))
    with pytest.raises(RuntimeError, match=r"invalid tensor size at index 0 \(expected \(3,\), got \(2,\)\)"):
        dist.all_gather([ember.zeros(2)], ember.ones(3))
    with pytest.raises(RuntimeError, match="expected length 1, got 2"):
        dist.all_gather([ember.zeros(3), ember.zeros(3)], ember.ones(3))
    with pytest.raises(TypeError, match="Expected parameter `tensor` of type ember.Tensor"):
        dist.all_reduce([1.0])
