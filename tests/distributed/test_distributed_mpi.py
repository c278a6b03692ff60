"""backend='mpi' beyond the shared collective tests (test_distributed_collectives/_gloo run those on MPI too):
rank and world size from MPI (given ones are ignored with PyTorch's warning), a group destroyed and made again in
one process, Work.wait's timeout while a peer is late, what MPI groups refuse (monitored_barrier, a gloo subgroup
without a store), and a rank killed for real: mpiexec ends the job instead of leaving the survivor hanging."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from dist_launch import launch_mpi, mpiexec

import ember.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_mpi_available() or mpiexec() is None,
                                reason="built without the mpich wheel")

_BEHAVIOUR = '''
import json, os, time, warnings
from datetime import timedelta
import ember, ember.distributed as dist
rank = int(os.environ["RANK"])
out = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    dist.init_process_group("mpi", rank=7, world_size=9)
out["warning"] = [str(w.message) for w in caught]
out["rank"], out["world"], out["backend"] = dist.get_rank(), dist.get_world_size(), dist.get_backend()
try:
    dist.monitored_barrier()
except ValueError as e:
    out["monitored_barrier"] = str(e)
try:
    dist.new_group([0], backend="gloo")
except ValueError as e:
    out["gloo_subgroup"] = str(e)
# a late peer: rank 1 joins the all-reduce 1.5 s late, so rank 0's wait with a 0.2 s timeout gives up first
t = ember.full((4,), float(rank + 1))
if rank == 1:
    time.sleep(1.5)
work = dist.all_reduce(t, async_op=True)
if rank == 0:
    try:
        work.wait(timeout=timedelta(seconds=0.2))
    except dist.DistBackendError as e:
        out["late_peer"] = str(e)
work.wait()
out["late_sum"] = t.tolist()
# destroyed and made again: MPI stays initialized, the new group works
dist.destroy_process_group()
out["after_destroy"] = dist.is_initialized()
dist.init_process_group("mpi")
t = ember.tensor([rank], dtype=ember.int64)
dist.all_reduce(t, op=dist.ReduceOp.MAX)
out["again"] = t.tolist()
dist.destroy_process_group()
print(json.dumps(out))
'''


def test_mpi_group_behaviour():
    world = 2
    for rank, out in enumerate(launch_mpi(_BEHAVIOUR, world, timeout=120)):
        assert out["warning"] == ["For MPI backend, world_size (9) and rank (7) are ignored since they are assigned "
                                  "by the MPI runtime."]
        assert (out["rank"], out["world"], out["backend"]) == (rank, world, "mpi")
        assert out["monitored_barrier"] == "monitored_barrier is only implemented for GLOO backend."
        assert out["gloo_subgroup"] == "new_group: a gloo group needs a store, and the default MPI group has none"
        if rank == 0:
            assert out["late_peer"] == "Work.wait(): the collective did not complete within 200ms"
        assert out["late_sum"] == [3.0] * 4
        assert out["after_destroy"] is False
        assert out["again"] == [world - 1]


_KILLED = '''
import json, os, signal, sys
import ember, ember.distributed as dist
dist.init_process_group("mpi")
rank = dist.get_rank()
dist.barrier()
if rank == 1:
    os.kill(os.getpid(), signal.SIGKILL)  # dies for real, mid-job
t = ember.ones(1 << 20)
for _ in range(1000):
    dist.all_reduce(t)
print(json.dumps({"finished": rank}), flush=True)
'''


@pytest.mark.parametrize("world", [2, 4])
def test_killed_rank_ends_the_job(world):
    start = time.monotonic()
    proc = subprocess.Popen([mpiexec(), "-n", str(world), sys.executable, "-c", _KILLED], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=60)  # a hang fails here
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    elapsed = time.monotonic() - start
    assert proc.returncode != 0, (out, err)
    assert '"finished"' not in out, out  # no survivor ran its 1000 all-reduces as if nothing happened
    # mpiexec says a rank died, and of what
    assert "BAD TERMINATION" in out + err and "Killed (signal 9)" in out + err, (out, err)
    assert elapsed < 60
