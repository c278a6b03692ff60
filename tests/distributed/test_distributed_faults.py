"""Faults on 3 gloo processes: a rank killed for real (SIGKILL from this test) or a rank that never calls the
collective makes every other rank raise DistBackendError within the group timeout, naming the collective and
the missing rank, and the broken group then fails fast; monitored_barrier names the ranks that did not arrive."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

import ember.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without libgloo-dev")

_PRELUDE = """
import json, os, sys, time
from datetime import timedelta
import ember, ember.distributed as dist
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo", init_method=os.environ["INIT"], rank=rank, world_size=world,
                        timeout=timedelta(seconds=float(os.environ["TIMEOUT"])))
def attempt(name, call):
    try:
        call()
        return {"collective": name, "raised": None}
    except dist.DistError as e:
        return {"collective": name, "raised": type(e).__name__, "message": str(e)}
"""

_VICTIM_WAITS = _PRELUDE + """
dist.barrier()
print("ready", flush=True)
if rank == world - 1:
    time.sleep(120)  # killed by the test, or never calls the collective
results = [attempt("all_reduce", lambda: dist.all_reduce(ember.ones(1 << 16)))]
results.append(attempt("broadcast", lambda: dist.broadcast(ember.ones(4), src=0)))
print(json.dumps(results), flush=True)
"""


def _start(script: str, world: int, tmp_path, timeout_s: float) -> list:
    env = {"INIT": f"file://{tmp_path}/rendezvous", "TIMEOUT": str(timeout_s)}
    return [subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ, RANK=str(r), WORLD_SIZE=str(world),
                                                                      **env),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(world)]


def _finish(procs: list, limit: float = 90) -> list:
    """(exit code, last JSON line or None, stderr) of each process; all of them are killed after limit seconds."""
    outcome = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=limit)
            lines = [ln for ln in out.splitlines() if ln.startswith("[") or ln.startswith("{")]
            outcome.append((p.returncode, json.loads(lines[-1]) if lines else None, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return outcome


def _check_survivors(outcome: list, missing: int):
    for rank, (code, results, err) in enumerate(outcome[:missing]):
        assert code == 0 and results is not None, err
        first, second = results
        assert first["raised"] == "DistBackendError", first
        assert first["message"].startswith(f"all_reduce (collective #1 of this group) failed on rank {rank} of 3; "
                                           f"rank(s) {missing} did not take part"), first["message"]
        # the group is broken now: the next collective fails at once, naming the first failure
        assert second["raised"] == "DistBackendError", second
        assert "broadcast on rank" in second["message"] and "unusable after an earlier failure" in second["message"]
        assert "all_reduce (collective #1 of this group)" in second["message"]


def test_sigkilled_rank_makes_the_others_raise(tmp_path):
    procs = _start(_VICTIM_WAITS, 3, tmp_path, timeout_s=60)  # far above the test's wait: death, not timeout
    try:
        assert procs[2].stdout.readline().strip() == "ready"
    except Exception:
        for p in procs:
            p.kill()
        raise
    os.kill(procs[2].pid, signal.SIGKILL)
    outcome = _finish(procs, limit=50)
    assert outcome[2][0] == -signal.SIGKILL
    _check_survivors(outcome, missing=2)


def test_rank_that_never_calls_makes_the_others_raise(tmp_path):
    procs = _start(_VICTIM_WAITS, 3, tmp_path, timeout_s=3)
    outcome = _finish(procs[:2], limit=60)
    procs[2].kill()
    procs[2].wait()
    _check_survivors(outcome + [None], missing=2)


_MONITORED = _PRELUDE + """
if rank == 0:
    out = [attempt("first", lambda: dist.monitored_barrier(timeout=timedelta(seconds=2))),
           attempt("all", lambda: dist.monitored_barrier(timeout=timedelta(seconds=2), wait_all_ranks=True))]
    print(json.dumps(out), flush=True)
else:
    time.sleep(6)
    print(json.dumps([]), flush=True)
"""


def test_monitored_barrier_names_the_ranks_that_did_not_arrive(tmp_path):
    outcome = _finish(_start(_MONITORED, 3, tmp_path, timeout_s=30), limit=60)
    code, results, err = outcome[0]
    assert code == 0 and results is not None, err
    first, every = results
    assert first["raised"] == "DistBackendError"
    assert first["message"].startswith("[Rank 0]: Rank 1 failed to pass monitoredBarrier in 2000 ms\n Original "
                                       "exception: \n"), first["message"]
    assert every["raised"] == "DistBackendError"
    assert every["message"] == "[Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier in 2000 ms"
