"""The launcher (python -m ember.distributed.run) run as users run it: the workers' environment, argument
passing, a failing worker's traceback in the report, restarts, log redirection, two agents rendezvousing
over c10d (a node joining and a node leaving), bad arguments, and the DDP digits recipe resuming from its
checkpoint after a worker is killed for real, ending where an uninterrupted run ends."""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest
from dist_launch import free_port

import ember.distributed as dist

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="built without libgloo-dev")

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECIPE = ROOT / "examples" / "ddp_digits" / "train.py"

WORKER = """
import json, os, sys, time
from datetime import timedelta
import ember, ember.distributed as dist
dist.init_process_group("gloo", timeout=timedelta(seconds=30))
t = ember.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "TORCHELASTIC_RESTART_COUNT",
        "TORCHELASTIC_MAX_RESTARTS", "ROLE_NAME", "OMP_NUM_THREADS"]
record = {k: os.environ.get(k) for k in keys}
record.update(sum=t.item(), argv=sys.argv[1:])
out = os.environ.get("OUT_DIR")
if out:
    with open(os.path.join(out, f"a{record['TORCHELASTIC_RESTART_COUNT']}_r{record['RANK']}.json"), "w") as f:
        json.dump(record, f)
# one write: the launcher runs workers unbuffered, and print() writes the text and its newline separately,
# so two workers' lines could interleave on the shared pipe
sys.stdout.write(json.dumps(record) + "\\n")
failing_attempts = os.environ.get("FAIL_ON", "0")
if os.environ.get("FAIL_RANK") == record["RANK"] and record["TORCHELASTIC_RESTART_COUNT"] in failing_attempts:
    raise ValueError(f"boom from rank {record['RANK']}")
hold = os.environ.get("HOLD_FILE")
if hold:  # stay in the group, talking to it, until the test says so (a lost peer fails the all_reduce)
    while True:
        flag = ember.tensor([1 if os.path.exists(hold) else 0])
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        if flag.item():
            break
        time.sleep(0.05)
"""


def launcher(*args, env=None, timeout=180):
    return subprocess.run([sys.executable, "-m", "ember.distributed.run", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, **(env or {})), cwd=ROOT)


@pytest.fixture
def worker(tmp_path):
    path = tmp_path / "worker.py"
    path.write_text(WORKER)
    return path


def _records(stdout: str) -> list:
    return sorted((json.loads(ln) for ln in stdout.splitlines() if ln.startswith("{")), key=lambda r: r["RANK"])


def test_workers_get_torchrun_environment_and_arguments(worker):
    res = launcher("--nproc_per_node", 3, worker, "--flag", "x")
    assert res.returncode == 0, res.stderr
    recs = _records(res.stdout)
    assert [r["RANK"] for r in recs] == ["0", "1", "2"]
    assert all(r["WORLD_SIZE"] == "3" and r["LOCAL_WORLD_SIZE"] == "3" and r["GROUP_RANK"] == "0" for r in recs)
    assert [r["LOCAL_RANK"] for r in recs] == ["0", "1", "2"]
    assert all(r["TORCHELASTIC_RESTART_COUNT"] == "0" and r["ROLE_NAME"] == "default" for r in recs)
    assert all(r["OMP_NUM_THREADS"] == "1" for r in recs)  # several workers per node: one thread each
    assert all(r["sum"] == 6.0 and r["argv"] == ["--flag", "x"] for r in recs)


def test_module_mode(worker):
    res = launcher("--nproc-per-node", 2, "-m", "worker", env={"PYTHONPATH": str(worker.parent)})
    assert res.returncode == 0, res.stderr
    assert [r["sum"] for r in _records(res.stdout)] == [3.0, 3.0]


def test_a_failing_worker_reaches_the_report_with_its_traceback(worker):
    res = launcher("--nproc_per_node", 2, worker, env={"FAIL_RANK": "1"})
    assert res.returncode == 1
    report = res.stderr
    assert "ChildFailedError" in report and f"{worker} FAILED" in report
    assert "rank      : 1 (local_rank: 1)" in report
    assert "ValueError: boom from rank 1" in report
    assert f'File "{worker}", line' in report  # the worker's own frame, not the launcher's
    assert "_bootstrap.py" not in report.split("traceback :")[1]


def test_a_failure_restarts_the_group(worker, tmp_path):
    res = launcher("--standalone", "--nproc_per_node", 2, "--max_restarts", 2, worker,
                   env={"FAIL_RANK": "1", "FAIL_ON": "01", "OUT_DIR": str(tmp_path)})
    assert res.returncode == 0, res.stderr
    assert "restarting the group (1/2)" in res.stderr and "restarting the group (2/2)" in res.stderr
    expected = [f"a{a}_r{r}.json" for a in range(3) for r in range(2)]
    assert sorted(p.name for p in tmp_path.glob("a*_r*.json")) == expected
    assert json.loads((tmp_path / "a2_r1.json").read_text())["TORCHELASTIC_MAX_RESTARTS"] == "2"


def test_redirects_and_tee_write_per_worker_logs(worker, tmp_path):
    logs = tmp_path / "logs"
    res = launcher("--nproc_per_node", 2, "--log_dir", logs, "--redirects", "3", "--tee", "0:1", worker)
    assert res.returncode == 0, res.stderr
    for rank in (0, 1):
        out = (logs / "attempt_0" / str(rank) / "stdout.log").read_text()
        assert json.loads(out.strip().splitlines()[-1])["RANK"] == str(rank)
    tee = [ln for ln in res.stdout.splitlines() if ln.startswith("[default0]:")]
    assert tee and json.loads(tee[-1][len("[default0]:"):])["RANK"] == "0"
    assert not [ln for ln in res.stdout.splitlines() if ln.startswith("{")]  # rank 1 only to its file


@pytest.mark.parametrize("args, message", [
    (["--nnodes", "3:1"], "need 1 <= MIN <= MAX"),
    (["--rdzv_backend", "c10d"], "needs --rdzv_endpoint"),
    (["--nproc_per_node", "0"], "at least 1"),
    (["--redirects", "7"], "0-3"),
])
def test_bad_arguments(worker, args, message):
    res = launcher(*args, worker)
    assert res.returncode == 2 and message in res.stderr


@pytest.mark.skipif(not hasattr(dist, "RedisStore") or shutil.which("redis-server") is None,
                    reason="needs RedisStore (libhiredis-dev) and redis-server")
def test_redis_rendezvous_with_two_agents(worker, tmp_path, redis_port):
    cmd = [sys.executable, "-m", "ember.distributed.run", "--nnodes", "2", "--nproc_per_node", "1", "--rdzv_backend",
           "redis", "--rdzv_endpoint", f"127.0.0.1:{redis_port}", "--rdzv_id", f"redis-job-{tmp_path.name}",
           str(worker)]
    agents = [subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(2)]
    outs = [a.communicate(timeout=180) for a in agents]
    assert all(a.returncode == 0 for a in agents), outs
    recs = _records(outs[0][0] + outs[1][0])
    assert [r["RANK"] for r in recs] == ["0", "1"]
    assert all(r["WORLD_SIZE"] == "2" and r["sum"] == 3.0 for r in recs)


def _agent(worker, endpoint, env, nproc=1, extra=()):
    cmd = [sys.executable, "-m", "ember.distributed.run", "--nnodes", "1:2", "--nproc_per_node", str(nproc),
           "--rdzv_backend", "c10d", "--rdzv_endpoint", endpoint, "--rdzv_id", "job",
           "--rdzv_conf", "last_call_timeout=1", "--max_restarts", "1", *extra, str(worker)]
    return subprocess.Popen(cmd, env=dict(os.environ, **env), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def _wait_for(path: pathlib.Path, timeout: float = 60):
    end = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.05)


def test_two_agents_rendezvous_and_a_node_joining_restarts_into_a_bigger_group(worker, tmp_path):
    endpoint = f"localhost:{free_port()}"
    env = {"OUT_DIR": str(tmp_path), "HOLD_FILE": str(tmp_path / "release")}
    a = _agent(worker, endpoint, env)
    try:
        _wait_for(tmp_path / "a0_r0.json")  # node A alone: round 0 closed with one node
        assert json.loads((tmp_path / "a0_r0.json").read_text())["WORLD_SIZE"] == "1"
        b = _agent(worker, endpoint, env)
        _wait_for(tmp_path / "a0_r1.json")  # B's arrival restarts A: a group of two (A keeps its restarts)
        (tmp_path / "release").write_text("")
        outs = [p.communicate(timeout=120) for p in (a, b)]
        assert a.returncode == 0 and b.returncode == 0, outs
        recs = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("a0_r*.json"))]
        assert sorted(r["RANK"] for r in recs) == ["0", "1"]
        assert {r["WORLD_SIZE"] for r in recs if r["sum"] == 3.0} == {"2"}
    finally:
        for p in (a, locals().get("b")):
            if p is not None and p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def _wait_for_store(port: int, timeout: float = 60):
    end = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < end, f"no store on port {port}"
            time.sleep(0.05)


def test_a_node_leaving_makes_the_other_restart_alone(worker, tmp_path):
    port = free_port()
    endpoint = f"localhost:{port}"
    env = {"OUT_DIR": str(tmp_path), "HOLD_FILE": str(tmp_path / "release")}
    a = _agent(worker, endpoint, env)
    _wait_for_store(port)  # A hosts the rendezvous store: the node that leaves must not be its host
    b = _agent(worker, endpoint, env)
    try:
        _wait_for(tmp_path / "a0_r1.json")
        _wait_for(tmp_path / "a0_r0.json")
        for pid in _children_with_rank(b.pid, None):  # node B (its worker, then its agent) disappears
            os.kill(pid, signal.SIGKILL)
        os.killpg(b.pid, signal.SIGKILL)
        b.wait()
        try:
            _wait_for(tmp_path / "a1_r0.json", timeout=150)  # A's worker lost its peer: restarted, alone
        except AssertionError:
            os.killpg(a.pid, signal.SIGKILL)
            raise AssertionError(f"A never restarted alone; its output:\n{a.communicate()}") from None
        assert json.loads((tmp_path / "a1_r0.json").read_text())["WORLD_SIZE"] == "1"
        (tmp_path / "release").write_text("")
        out, err = a.communicate(timeout=120)
        assert a.returncode == 0, err
    finally:
        for p in (a, b):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def _children_with_rank(parent: int, rank: str | None) -> list[int]:
    """The processes whose parent is `parent` (with RANK=rank in their environment, unless rank is None)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if ppid == parent and (rank is None or f"RANK={rank}".encode() in environ):
            found.append(int(entry.name))
    return found


def test_ddp_recipe_killed_worker_resumes_and_ends_as_an_uninterrupted_run(tmp_path):
    common = ["--epochs", 5, "--fresh"]
    plain = launcher("--standalone", "--nproc_per_node", 2, RECIPE, *common, "--checkpoint", tmp_path / "a.ckpt",
                     "--results", tmp_path / "a.json", timeout=600)
    assert plain.returncode == 0, plain.stderr
    cmd = [sys.executable, "-m", "ember.distributed.run", "--standalone", "--nproc_per_node", "2", "--max_restarts",
           "1", str(RECIPE), *map(str, common), "--checkpoint", str(tmp_path / "b.ckpt"), "--results",
           str(tmp_path / "b.json")]
    run = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(tmp_path / "b.ckpt", timeout=300)  # epoch 1 is done: kill rank 1 in epoch 2
        victims = _children_with_rank(run.pid, "1")
        assert len(victims) == 1
        os.kill(victims[0], signal.SIGKILL)
        out, err = run.communicate(timeout=600)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 0, err
    assert "restarting the group (1/1)" in err and "resumed from" in out
    a, b = json.loads((tmp_path / "a.json").read_text()), json.loads((tmp_path / "b.json").read_text())
    assert b["restarts"] == 1 and a["restarts"] == 0
    assert a["accuracy"] == b["accuracy"] and a["accuracy"] > 0.95
    assert a["params_checksum"] == pytest.approx(b["params_checksum"], rel=1e-6)
