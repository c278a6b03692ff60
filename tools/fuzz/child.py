"""The fuzzer's worker process: makes and runs calls start..stop-1 of a campaign, telling the parent on
fd `--report` which call it starts ("S i") and which failed ("F i class message"), so that a crash or
a hang is pinned to its call. Run by tools.fuzz.runner, never by hand."""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import warnings


def limit_memory(extra_bytes: int) -> None:
    """Caps the address space a little above what the process uses now, so a huge allocation fails
    at once (and is seen as ember's OutOfMemoryError) instead of filling the shared machine."""
    with open("/proc/self/statm") as f:
        vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (vm + extra_bytes, vm + extra_bytes))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--start", type=int, required=True)
    p.add_argument("--stop", type=int, required=True)
    p.add_argument("--report", type=int, required=True)
    p.add_argument("--mem", type=int, default=3 << 30)
    a = p.parse_args()
    import numpy as np

    import ember
    from tools.fuzz import campaign

    ember.set_num_threads(1)
    targets = campaign.targets(ember)
    limit_memory(a.mem)
    warnings.simplefilter("ignore")
    out = os.fdopen(a.report, "w", buffering=1)
    devnull = open(os.devnull, "w")
    sys.stdout = devnull  # ops must not print, but a __repr__ in a message may; keep the channel clean
    for i in range(a.start, a.stop):
        call = campaign.make_call(targets, a.seed, i)
        out.write(f"S {i}\n")
        verdict = campaign.run_call(ember, np, call)
        if verdict is not None:
            out.write("F " + json.dumps([i, verdict[0], verdict[1][:500]]) + "\n")
    out.write("D\n")


if __name__ == "__main__":
    main()
