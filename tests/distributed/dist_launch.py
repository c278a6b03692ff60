"""Runs a worker script in N fresh Python processes (RANK/WORLD_SIZE and extra variables in their environment)
and returns what each printed as its last JSON line. Every launch is bounded by a timeout: on expiry all
processes are killed and the test fails, so a hung collective cannot hang the suite."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys


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
