"""ember.multiprocessing.spawn and start_processes: run fn(i, *args) in nprocs processes and join them;
the first process to fail stops the others, and the parent raises ProcessRaisedException (with the
child's traceback) or ProcessExitedException (its exit code or signal), as torch.multiprocessing does."""
from __future__ import annotations

import ctypes
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import warnings

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "spawn",
           "SpawnContext", "start_processes"]

log = logging.getLogger(__name__)
_PR_SET_PDEATHSIG = 1


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A process failed because fn raised: the message holds the child's traceback."""


class ProcessExitedException(ProcessException):
    """A process exited with a nonzero code or was killed by a signal."""

    __slots__ = ["exit_code", "signal_name"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _die_with_parent():
    """Linux: a SIGINT reaches this process when its parent dies, so no child outlives a killed parent."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGINT, 0, 0, 0)
        except (OSError, AttributeError):
            pass


def _run_child(fn, i, args, error_file):
    _die_with_parent()
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # stopped by the parent (SIGINT): not an error of fn's
    except Exception:
        import traceback
        with open(error_file, "wb") as f:
            pickle.dump(traceback.format_exc(), f)
        sys.exit(1)


class ProcessContext:
    """The processes start_processes started; join() waits for them and raises the first failure."""

    def __init__(self, processes, error_files):
        self.processes = processes
        self.error_files = error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _join_all(self, timeout):
        deadline = time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0.0, deadline - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """Waits up to timeout seconds for a process to finish. True when all have finished cleanly, False
        when some still run; when one failed, stops the rest (SIGTERM, then SIGKILL after grace_period,
        30 s by default) and raises the failure."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            i = self.sentinels.pop(sentinel)
            self.processes[i].join()
            if self.processes[i].exitcode != 0:
                failed = i
                break
        if failed is None:
            return not self.sentinels
        self._stop_others(grace_period)
        self._raise_failure(failed)

    def _stop_others(self, grace_period):
        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", p.pid)
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting via SIGKILL", p.pid)
                p.kill()
            p.join()

    def _raise_failure(self, i):
        proc = self.processes[i]
        path = self.error_files[i]
        if not os.access(path, os.R_OK):  # no traceback written: it exited or was killed
            code = proc.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(f"process {i:d} terminated with signal {name}", error_index=i,
                                             error_pid=proc.pid, exit_code=code, signal_name=name)
            raise ProcessExitedException(f"process {i:d} terminated with exit code {code:d}", error_index=i,
                                         error_pid=proc.pid, exit_code=code)
        with open(path, "rb") as f:
            trace = pickle.load(f)
        os.unlink(path)
        raise ProcessRaisedException(f"\n\n-- Process {i:d} terminated with the following error:\n{trace}", i,
                                     proc.pid)


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def _error_file():
    """A path no file holds yet: the child writes its traceback there only when fn raises."""
    fd, path = tempfile.mkstemp(prefix="ember-errorfile-", suffix=".pickle")
    os.close(fd)
    os.unlink(path)
    return path


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Runs fn(i, *args) for i in range(nprocs), each in a process started by start_method ('spawn', 'fork'
    or 'forkserver'). join=True waits for all (raising the first failure); join=False returns the
    ProcessContext."""
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        path = _error_file()
        p = ctx.Process(target=_run_child, args=(fn, i, args, path), daemon=daemon)
        p.start()
        processes.append(p)
        error_files.append(path)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Runs fn(i, *args) in nprocs processes started with 'spawn' (fn must be importable: defined at the
    top level of a module). Returns None when join, else the ProcessContext."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different "
                      "start_method use:\n\t\t ember.multiprocessing.start_processes(...)", FutureWarning,
                      stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
