"""Runs a worker script in N fresh Python processes (RANK/WORLD_SIZE and extra variables in their environment)
and returns what each printed as its last JSON line. Every launch is bounded by a timeout: on expiry all
processes are killed and the test fails, so a hung collective cannot hang the suite."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(script: str, world_size: int, env: dict | None = None, timeout: float = 120.0,
           ranks: list[int] | None = None) -> list:
    procs = []
    for rank in ranks if ranks is not None else range(world_size):
        penv = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world_size), **(env or {}))
        procs.append(subprocess.Popen([sys.executable, "-c", script], env=penv, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    results, failures = [], []
    try:
        for rank, p in enumerate(procs):
            out, err = p.communicate(timeout=timeout)
            lines = [ln for ln in out.splitlines() if ln.startswith("{") or ln.startswith("[")]
            if p.returncode != 0 or not lines:
                failures.append(f"worker {rank} failed (exit {p.returncode}):\n{out}\n{err}")
            else:
                results.append(json.loads(lines[-1]))
        assert not failures, "\n".join(failures)  # every rank's error: the first to fail is not always rank 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return results


def mpiexec() -> str | None:
    """The mpich wheel's mpiexec beside this Python (the venv's bin), or None when it is not installed."""
    path = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return path if os.access(path, os.X_OK) else None


# Run before a worker script under mpiexec: the script reads RANK/WORLD_SIZE, which MPI's launcher names PMI_*.
_MPI_PRELUDE = ('import os\n'
                'os.environ["RANK"], os.environ["WORLD_SIZE"] = os.environ["PMI_RANK"], os.environ["PMI_SIZE"]\n')


def launch_mpi(script: str, world_size: int, env: dict | None = None, timeout: float = 120.0,
               mpiexec_args: tuple = ()) -> list:
    """launch() under mpiexec -n world_size (BACKEND=mpi in the environment): each rank's last JSON line, by rank
    (each rank's output goes to a file of its own, so long lines stay whole). On timeout mpiexec is killed, and with
    it every rank."""
    penv = dict(os.environ, BACKEND="mpi", **(env or {}))
    with tempfile.TemporaryDirectory() as outdir:
        proc = subprocess.Popen([mpiexec(), *mpiexec_args, "-outfile-pattern", f"{outdir}/out.%r",
                                 "-n", str(world_size), sys.executable, "-c", _MPI_PRELUDE + script], env=penv,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, 9)
                proc.wait()
        outputs = []
        for rank in range(world_size):
            path = f"{outdir}/out.{rank}"
            outputs.append(open(path).read() if os.path.exists(path) else "")
    results = []
    for rank, text in enumerate(outputs):
        lines = [ln for ln in text.splitlines() if ln.startswith("{") or ln.startswith("[")]
        assert proc.returncode == 0 and lines, (f"mpiexec failed (exit {proc.returncode}); rank {rank} printed:\n"
                                                f"{text}\n{out}\n{err}")
        results.append(json.loads(lines[-1]))
    return results
