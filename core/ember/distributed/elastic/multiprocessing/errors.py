"""Error files: a worker that fails writes its exception and traceback as JSON to the file named by
TORCHELASTIC_ERROR_FILE (torchrun's variable, kept so PyTorch scripts run unchanged), and the launcher
prints it in its failure report. `record` is PyTorch's decorator for a worker's main function; emberrun
also runs every Python worker under it (see _bootstrap), so a traceback reaches the launcher's output
without the script opting in."""
from __future__ import annotations

import functools
import json
import os
import socket
import time
import traceback
from dataclasses import dataclass, field

__all__ = ["ChildFailedError", "ProcessFailure", "record"]

ERROR_FILE_ENV = "TORCHELASTIC_ERROR_FILE"


_LAUNCH_FRAMES = ("/elastic/multiprocessing/errors.py", "/elastic/_bootstrap.py", "<frozen runpy>")


def _user_traceback(exc: BaseException) -> str:
    """exc's traceback without the launcher's own frames (record's wrapper, the bootstrap, runpy)."""
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack if not any(f.filename.replace(os.sep, "/").endswith(m) or f.filename == m
                                        for m in _LAUNCH_FRAMES)])
    return "".join(te.format())


def write_error_file(exc: BaseException) -> None:
    """Writes exc (with its traceback) to the error file, when the launcher named one; the first error wins."""
    path = os.environ.get(ERROR_FILE_ENV)
    if not path or os.path.exists(path):
        return
    data = {"message": {"message": f"{type(exc).__name__}: {exc}",
                        "extraInfo": {"py_callstack": _user_traceback(exc),
                                      "timestamp": str(int(time.time()))}}}
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def record(fn=None, error_handler=None):
    """Decorates a worker's entry point: an exception it raises is written to the error file, then
    re-raised."""
    def wrap(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            try:
                return f(*args, **kwargs)
            except SystemExit as e:
                if e.code not in (None, 0):
                    write_error_file(e)
                raise
            except BaseException as e:
                write_error_file(e)
                raise
        return wrapper
    return wrap(fn) if fn is not None else wrap


@dataclass
class ProcessFailure:
    """One failed worker: its ranks, pid, exit code (negative: killed by that signal) and error file."""
    local_rank: int
    rank: int
    pid: int
    exitcode: int
    error_file: str
    timestamp: float = field(default_factory=time.time)

    def __post_init__(self):
        self.message, self.traceback = "", ""
        if self.error_file and os.path.isfile(self.error_file):
            try:
                with open(self.error_file) as f:
                    data = json.load(f)["message"]
                self.message = data.get("message", "")
                self.traceback = data.get("extraInfo", {}).get("py_callstack", "")
            except (OSError, ValueError, KeyError, TypeError) as e:
                self.message = f"unreadable error file {self.error_file}: {e}"
        if not self.message:
            if self.exitcode < 0:
                import signal
                try:
                    name = signal.Signals(-self.exitcode).name
                except ValueError:
                    name = str(-self.exitcode)
                self.message = f"Signal {-self.exitcode} ({name}) received by PID {self.pid}"
            else:
                self.message = f"process exited with code {self.exitcode} and wrote no error file"

    def describe(self, host: str | None = None) -> str:
        lines = [f"  time      : {time.strftime('%Y-%m-%d_%H:%M:%S', time.localtime(self.timestamp))}",
                 f"  host      : {host or socket.gethostname()}",
                 f"  rank      : {self.rank} (local_rank: {self.local_rank})",
                 f"  exitcode  : {self.exitcode} (pid: {self.pid})",
                 f"  error_file: {self.error_file if os.path.isfile(self.error_file or '') else '<N/A>'}",
                 f"  message   : {self.message}"]
        if self.traceback:
            lines.append("  traceback :")
            lines += ["    " + ln for ln in self.traceback.rstrip().splitlines()]
        return "\n".join(lines)


class ChildFailedError(Exception):
    """Raised by the launcher when workers failed and no restart is left; its text is the failure report."""

    def __init__(self, name: str, failures: dict):
        self.name, self.failures = name, failures
        super().__init__(self.format_msg())

    def format_msg(self) -> str:
        ordered = sorted(self.failures.values(), key=lambda f: f.timestamp)
        bar, thin = "=" * 60, "-" * 60
        others = [f"[{i}]:\n{f.describe()}" for i, f in enumerate(ordered[1:], 1)] or ["  <NO_OTHER_FAILURES>"]
        root = f"[0]:\n{ordered[0].describe()}" if ordered else "  <NO_FAILURES>"
        return "\n".join(["", bar, f"{self.name} FAILED", thin, "Failures:", *others, thin,
                          "Root Cause (first observed failure):", root, bar])
