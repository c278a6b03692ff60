"""How much of the machine's CPU other processes took while a measurement ran: the machine's busy
time (from /proc/stat) less this process's own CPU time, over the wall time times the CPU count.
A benchmark on a shared machine can then say that its numbers were taken under load."""
import os
import time

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _machine_busy_seconds():
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [int(v) for v in fields[1:9]]  # user nice system idle iowait irq softirq steal
    return (sum(ticks) - ticks[3] - ticks[4]) / _TICK


def _own_cpu_seconds():
    t = os.times()
    return t.user + t.system


class ContentionMeter:
    """start() ... stop() -> the share (0..1) of all CPUs that other processes used, or None where
    the platform does not expose the machine's busy time."""

    def __init__(self):
        self._start = None

    def start(self):
        self._start = (_machine_busy_seconds(), _own_cpu_seconds(), time.perf_counter())

    def stop(self):
        busy0, own0, wall0 = self._start
        busy1, own1, wall1 = _machine_busy_seconds(), _own_cpu_seconds(), time.perf_counter()
        if busy0 is None or busy1 is None or wall1 <= wall0:
            return None
        others = (busy1 - busy0) - (own1 - own0)
        share = others / ((wall1 - wall0) * (os.cpu_count() or 1))
        return min(max(share, 0.0), 1.0)
