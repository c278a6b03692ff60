"""python -m ember.distributed.elastic._bootstrap [-m] TARGET [ARGS...]: how emberrun starts a Python
worker: TARGET (a script path, or a module with -m) runs as __main__ with ARGS as sys.argv[1:], and an
exception it raises is written to the error file before the process fails as it would have."""
from __future__ import annotations

import os
import runpy
import sys

from ember.distributed.elastic.multiprocessing.errors import record


@record
def _run(as_module: bool, target: str, args: list) -> None:
    sys.argv = [target, *args]
    if as_module:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runpy.run_path(target, run_name="__main__")


def main() -> None:
    argv = sys.argv[1:]
    as_module = bool(argv) and argv[0] == "-m"
    if as_module:
        argv = argv[1:]
    if not argv:
        raise SystemExit("usage: python -m ember.distributed.elastic._bootstrap [-m] TARGET [ARGS...]")
    _run(as_module, argv[0], argv[1:])


if __name__ == "__main__":
    main()
