"""Runs a campaign in child processes (tools.fuzz.child), a batch of calls per child, restarting after a
crash or a hang: a child that dies by a signal crashed on the call it had started; one silent for
longer than the per-call limit hangs there and is killed."""
from __future__ import annotations

import collections
import dataclasses
import json
import os
import pathlib
import select
import signal
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


@dataclasses.dataclass
class Failure:
    index: int
    kind: str      # crash, hang, died, cpp_leak, internal, memory, build_*
    message: str


@dataclasses.dataclass
class Result:
    calls: int = 0
    seconds: float = 0.0
    children: int = 0
    slow_huge: int = 0  # timeouts on calls that must read a 2**40-element input
    failures: list = dataclasses.field(default_factory=list)

    def by_kind(self) -> dict:
        return dict(collections.Counter(f.kind for f in self.failures))


def _spawn(seed: int, start: int, stop: int, mem: int):
    r, w = os.pipe()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, "-m", "tools.fuzz.child", "--seed", str(seed), "--start", str(start),
                             "--stop", str(stop), "--report", str(w), "--mem", str(mem)],
                            cwd=str(ROOT), env=env, pass_fds=(w,), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(w)
    return proc, r


class _Lines:
    """Lines from the child's report pipe, read unbuffered so that select() sees every line not yet
    taken (a buffered reader could hold the next line while select waits on an empty pipe)."""

    def __init__(self, fd: int):
        self.fd, self.buf, self.eof = fd, b"", False

    def next(self, limit: float):
        """The next line (without its newline), "" at end of file, None after `limit` seconds of silence."""
        deadline = time.monotonic() + limit
        while b"\n" not in self.buf and not self.eof:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            chunk = os.read(self.fd, 65536)
            self.eof = not chunk
            self.buf += chunk
        if b"\n" not in self.buf:
            return ""
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode() or " "


def run(seed: int, calls: int, start: int = 0, batch: int = 2000, timeout: float = 10.0,
        startup_timeout: float = 120.0, mem: int = 3 << 30, log=print) -> Result:
    """Calls start..start+calls-1 of campaign `seed`; log(line) gets a repro line per failure."""
    res = Result()
    t0 = time.monotonic()
    i, stop_all = start, start + calls
    failed_starts = 0
    while i < stop_all:
        stop = min(i + batch, stop_all)
        proc, rd = _spawn(seed, i, stop, mem)
        res.children += 1
        current, started = None, False
        lines = _Lines(rd)
        while True:
            limit = timeout if started else startup_timeout
            line = lines.next(limit)
            if line is None:  # silent past the limit: a hang on the current call (or a stuck start)
                proc.kill()
                proc.wait()
                if current is None:
                    raise RuntimeError(f"fuzz child did not start within {limit} s: {proc.stderr.read()[-2000:]}")
                _fail(res, log, seed, current, "hang", f"no result within {timeout} s")
                i = current + 1
                break
            if not line:  # the child is gone
                code = proc.wait()
                err = proc.stderr.read()[-1500:]
                if current is None:
                    failed_starts += 1
                    if failed_starts > 3:
                        raise RuntimeError(f"fuzz child failed to start (exit {code}): {err}")
                    break  # once more from the same call (a library being rebuilt under it, say)
                kind = "crash" if code < 0 else "died"
                what = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
                _fail(res, log, seed, current, kind, f"{what}; stderr: {err.strip()[-600:]}")
                i = current + 1
                break
            if line.startswith("S "):
                failed_starts = 0
                current = int(line[2:])
                started = True
                res.calls += 1
            elif line.startswith("F "):
                idx, kind, msg = json.loads(line[2:])
                _fail(res, log, seed, idx, kind, msg)
            elif line.startswith("D"):
                proc.wait()
                i = stop
                break
        os.close(rd)
        if proc.stderr:
            proc.stderr.close()
    res.seconds = time.monotonic() - t0
    return res


def describe_call(seed: int, index: int) -> str:
    import ember
    from tools.fuzz import campaign
    return campaign.make_call(campaign.targets(ember), seed, index).describe()


def _fail(res: Result, log, seed: int, index: int, kind: str, message: str) -> None:
    try:
        call = describe_call(seed, index)
    except Exception as e:  # describing must never stop the campaign
        call = f"<could not describe: {e}>"
    if kind == "hang" and ", huge" in call:
        # an input of 2**40 elements (an expanded view) that the op really has to read: slow by
        # nature, as in PyTorch, not a hang; counted apart and never a failure
        res.slow_huge += 1
        return
    res.failures.append(Failure(index, kind, message))
    log(f"FAIL {kind}: python -m tools.fuzz --seed {seed} --replay {index}  # {call}  -> {message[:300]}")
