"""The local elastic agent: after each rendezvous it starts nproc_per_node workers with the environment a
PyTorch script expects (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR/PORT, TORCHELASTIC_RESTART_COUNT, ...),
watches them every monitor_interval, and when one fails stops the rest and restarts the group through a
new rendezvous, up to max_restarts times; a change of membership (a node arriving or another node's
failure) restarts without using up a restart. Output can go to per-worker log files (redirects) and to
the console with a rank prefix (tee)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

from .multiprocessing.errors import ERROR_FILE_ENV, ChildFailedError, ProcessFailure

__all__ = ["LocalElasticAgent", "WorkerSpec"]

STDOUT, STDERR = 1, 2


@dataclass
class WorkerSpec:
    entrypoint: list           # the command (python -m ember.distributed.elastic._bootstrap TARGET ARGS...)
    name: str                  # for the failure report: the script or module
    nproc_per_node: int
    role: str = "default"
    max_restarts: int = 0
    monitor_interval: float = 0.1
    redirects: dict = field(default_factory=dict)  # local rank -> STDOUT|STDERR bits
    tee: dict = field(default_factory=dict)
    log_dir: str | None = None
    run_id: str = "none"
    extra_env: dict = field(default_factory=dict)


class _Worker:
    def __init__(self, local_rank: int, rank: int, proc: subprocess.Popen, error_file: str, pumps: list):
        self.local_rank, self.rank, self.proc, self.error_file, self.pumps = local_rank, rank, proc, error_file, pumps


def _pump(src, sinks: list, prefix: str):
    """Copies a worker's output line by line to its log file and/or the console (with a rank prefix)."""
    for line in iter(src.readline, b""):
        for sink, prefixed in sinks:
            sink.write((prefix.encode() + line) if prefixed else line)
            sink.flush()
    src.close()


class LocalElasticAgent:
    def __init__(self, spec: WorkerSpec, rendezvous):
        self.spec = spec
        self.rdzv = rendezvous
        self.restart_count = 0
        self.workers: list[_Worker] = []
        self._log_dir = spec.log_dir or tempfile.mkdtemp(prefix=f"emberelastic_{spec.run_id}_")
        self._stopping = False

    # -- workers -------------------------------------------------------------------------------------------
    def _start_workers(self, info) -> None:
        spec = self.spec
        world_size = info.group_world_size * spec.nproc_per_node
        attempt = os.path.join(self._log_dir, f"attempt_{self.restart_count}")
        self.workers = []
        for local_rank in range(spec.nproc_per_node):
            rank = info.group_rank * spec.nproc_per_node + local_rank
            wdir = os.path.join(attempt, str(local_rank))
            os.makedirs(wdir, exist_ok=True)
            error_file = os.path.join(wdir, "error.json")
            env = dict(os.environ, **spec.extra_env)
            env.update({
                "RANK": str(rank), "LOCAL_RANK": str(local_rank), "WORLD_SIZE": str(world_size),
                "LOCAL_WORLD_SIZE": str(spec.nproc_per_node), "GROUP_RANK": str(info.group_rank),
                "GROUP_WORLD_SIZE": str(info.group_world_size), "ROLE_RANK": str(rank), "ROLE_NAME": spec.role,
                "ROLE_WORLD_SIZE": str(world_size), "MASTER_ADDR": info.master_addr,
                "MASTER_PORT": str(info.master_port), "TORCHELASTIC_RESTART_COUNT": str(self.restart_count),
                "TORCHELASTIC_MAX_RESTARTS": str(spec.max_restarts), "TORCHELASTIC_RUN_ID": spec.run_id,
                ERROR_FILE_ENV: error_file, "PYTHONUNBUFFERED": "1"})
            if spec.nproc_per_node > 1 and "OMP_NUM_THREADS" not in os.environ:
                env["OMP_NUM_THREADS"] = "1"  # as torchrun: N workers on one node must not each take every core
            redirect, tee = spec.redirects.get(local_rank, 0), spec.tee.get(local_rank, 0)
            streams, plans = {}, []
            for bit, name, console in ((STDOUT, "stdout", sys.stdout.buffer), (STDERR, "stderr", sys.stderr.buffer)):
                if (redirect | tee) & bit:
                    log = open(os.path.join(wdir, f"{name}.log"), "wb")
                    sinks = [(log, False)] + ([(console, True)] if tee & bit else [])
                    streams[name] = subprocess.PIPE
                    plans.append((name, sinks))
            proc = subprocess.Popen(spec.entrypoint, env=env, stdout=streams.get("stdout"),
                                    stderr=streams.get("stderr"), start_new_session=True)
            pumps = []
            for name, sinks in plans:
                t = threading.Thread(target=_pump, args=(getattr(proc, name), sinks, f"[{spec.role}{local_rank}]:"),
                                     daemon=True)
                t.start()
                pumps.append((t, sinks))
            self.workers.append(_Worker(local_rank, rank, proc, error_file, pumps))

    def _stop_workers(self, grace: float = 5.0) -> None:
        """SIGTERM to each worker's process group, SIGKILL after `grace` seconds."""
        for w in self.workers:
            if w.proc.poll() is None:
                try:
                    os.killpg(w.proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        end = time.monotonic() + grace
        for w in self.workers:
            try:
                w.proc.wait(timeout=max(0.0, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(w.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                w.proc.wait()
        self._close_logs()

    def _close_logs(self) -> None:
        for w in self.workers:
            for t, sinks in w.pumps:
                t.join(timeout=5)
                for sink, prefixed in sinks:
                    if not prefixed:
                        sink.close()
            w.pumps = []

    def _monitor(self):
        """'succeeded', 'membership', or the failures {rank: ProcessFailure}."""
        while True:
            time.sleep(self.spec.monitor_interval)
            codes = [w.proc.poll() for w in self.workers]
            failed = {w.rank: ProcessFailure(w.local_rank, w.rank, w.proc.pid, c, w.error_file)
                      for w, c in zip(self.workers, codes) if c not in (None, 0)}
            if failed:
                return failed
            if all(c == 0 for c in codes):
                return "succeeded"
            if self.rdzv.membership_changed():
                return "membership"

    # -- the run -------------------------------------------------------------------------------------------
    def run(self) -> int:
        """Runs the job to the end: 0 when every worker of the last round succeeded; raises ChildFailedError
        once the restarts are used up."""
        previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}

        def on_signal(signum, frame):
            self._stopping = True
            self._stop_workers()
            raise SystemExit(128 + signum)
        for s in previous:
            signal.signal(s, on_signal)
        try:
            while True:
                info = self.rdzv.next_rendezvous()
                self._start_workers(info)
                outcome = self._monitor()
                if outcome == "succeeded":
                    self._close_logs()
                    self.rdzv.mark_succeeded(info.group_rank)
                    return 0
                self._stop_workers()
                if outcome == "membership":
                    self.rdzv.admit_waiting_nodes()
                    self._log(f"membership changed: restarting the workers (restart {self.restart_count} of "
                              f"{self.spec.max_restarts} used)")
                    continue
                self.rdzv.request_restart()
                if self.restart_count >= self.spec.max_restarts:
                    raise ChildFailedError(self.spec.name, outcome)
                self.restart_count += 1
                first = min(outcome.values(), key=lambda f: f.timestamp)
                self._log(f"worker rank {first.rank} failed ({first.message}); restarting the group "
                          f"({self.restart_count}/{self.spec.max_restarts})")
        finally:
            for s, h in previous.items():
                signal.signal(s, h)

    def _log(self, text: str) -> None:
        print(f"[emberrun] {text}", file=sys.stderr, flush=True)
