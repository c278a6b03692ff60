"""python -m ember.distributed.run (also installed as `emberrun`): PyTorch's torchrun for ember.

    emberrun --nproc_per_node 2 train.py --epochs 5
    emberrun --standalone --nproc_per_node 4 --max_restarts 2 train.py
    emberrun --nnodes 1:3 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint HOST:29400 --rdzv_id job7 train.py

It starts --nproc_per_node workers per node with RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT
set, watches them, and on a failure stops the group and restarts it (re-rendezvousing, so nodes may join or
leave within --nnodes MIN:MAX) up to --max_restarts times; a failing worker's traceback appears in the
launcher's report."""
from __future__ import annotations

import argparse
import os
import socket
import sys
import uuid

from .elastic.agent import STDERR, STDOUT, LocalElasticAgent, WorkerSpec
from .elastic.multiprocessing.errors import ChildFailedError
from .elastic.rendezvous import RendezvousParameters, make_rendezvous

__all__ = ["get_args_parser", "main", "parse_args", "run"]


def get_args_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="emberrun", description="Ember distributed elastic training launcher")

    def add(*names, **kw):
        # torchrun takes every multi-word option with underscores and with dashes.
        spelled = list(names) + [n.replace("_", "-") for n in names if n.startswith("--") and "_" in n]
        p.add_argument(*spelled, **kw)

    add("--nnodes", default="1:1", help="N or MIN:MAX nodes")
    add("--nproc_per_node", default="1", help="workers per node: a number, 'cpu' or 'auto' (one per CPU)")
    add("--rdzv_backend", default="static", choices=["static", "c10d", "redis"])
    add("--rdzv_endpoint", default="", help="HOST[:PORT] of the rendezvous store")
    add("--rdzv_id", default="none", help="the job's id, shared by all its nodes")
    add("--rdzv_conf", default="", help="KEY=VALUE,... (join_timeout, last_call_timeout in seconds)")
    add("--standalone", action="store_true", help="one node, its own c10d rendezvous on a free local port")
    add("--max_restarts", type=int, default=0)
    add("--monitor_interval", type=float, default=0.1, help="seconds between checks of the workers")
    add("--start_method", default="spawn", choices=["spawn", "fork", "forkserver"],
        help="accepted for torchrun's sake: workers are always fresh processes")
    add("--role", default="default")
    add("-m", "--module", action="store_true", help="run the target as a module (python -m)")
    add("--no_python", action="store_true", help="run the target as an executable, not through Python")
    add("--run_path", action="store_true", help="run the target through runpy.run_path (the default for scripts)")
    add("--log_dir", default=None, help="per-attempt, per-worker logs and error files go here")
    add("-r", "--redirects", default="0", help="0 none, 1 stdout, 2 stderr, 3 both; or per rank: 0:1,1:3")
    add("-t", "--tee", default="0", help="as --redirects, also copied to the console with a rank prefix")
    add("--node_rank", type=int, default=0, help="this node's rank (static rendezvous)")
    add("--master_addr", default="127.0.0.1", help="rank 0's address (static rendezvous)")
    add("--master_port", type=int, default=None, help="rank 0's port (static rendezvous; default 29500, or a free "
        "port for a single node)")
    add("--local_addr", default=None)
    p.add_argument("training_script", help="the worker's script (or module with -m, executable with --no_python)")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args=None) -> argparse.Namespace:
    return get_args_parser().parse_args(args)


def _nodes(text: str) -> tuple[int, int]:
    try:
        lo, _, hi = text.partition(":")
        lo, hi = int(lo), int(hi or lo)
    except ValueError:
        raise ValueError(f"--nnodes must be N or MIN:MAX, got {text!r}") from None
    if not 1 <= lo <= hi:
        raise ValueError(f"--nnodes {text!r}: need 1 <= MIN <= MAX")
    return lo, hi


def _per_rank(text: str, nproc: int, what: str) -> dict:
    """--redirects/--tee: one value for every local rank, or LOCAL_RANK:VALUE pairs."""
    try:
        if ":" not in text:
            return {r: int(text) for r in range(nproc)}
        return {int(k): int(v) for k, v in (item.split(":") for item in text.split(","))}
    except ValueError:
        raise ValueError(f"--{what} must be 0-3 or LOCAL_RANK:VALUE,..., got {text!r}") from None


def _nproc(text: str) -> int:
    if text in ("cpu", "auto", "gpu"):
        return len(os.sched_getaffinity(0)) if text != "gpu" else 0
    n = int(text)
    if n < 1:
        raise ValueError(f"--nproc_per_node must be at least 1, got {n}")
    return n


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def config_from_args(args: argparse.Namespace):
    min_nodes, max_nodes = _nodes(args.nnodes)
    nproc = _nproc(args.nproc_per_node)
    if nproc == 0:
        raise ValueError("--nproc_per_node gpu: this machine has no GPU")
    backend, endpoint, run_id = args.rdzv_backend, args.rdzv_endpoint, args.rdzv_id
    if args.standalone:
        backend, endpoint, run_id = "c10d", f"localhost:{_free_port()}", str(uuid.uuid4())
        min_nodes = max_nodes = 1
    if backend != "static" and not endpoint:
        raise ValueError(f"--rdzv_backend {backend} needs --rdzv_endpoint HOST[:PORT]")
    conf = dict(item.split("=", 1) for item in args.rdzv_conf.split(",") if item)
    master_port = args.master_port
    if master_port is None:
        master_port = _free_port() if max_nodes == 1 else 29500
    params = RendezvousParameters(backend, endpoint, run_id, min_nodes, max_nodes, conf, args.node_rank,
                                  args.master_addr, master_port)
    if args.no_python and args.module:
        raise ValueError("Don't use both the '--no_python' flag and the '--module' flag at the same time.")
    if args.no_python:
        cmd = [args.training_script]
    else:
        cmd = [sys.executable, "-u", "-m", "ember.distributed.elastic._bootstrap"]
        cmd += ["-m", args.training_script] if args.module else [args.training_script]
    cmd += args.training_script_args
    spec = WorkerSpec(cmd, args.training_script, nproc, args.role, args.max_restarts, args.monitor_interval,
                      _per_rank(args.redirects, nproc, "redirects"), _per_rank(args.tee, nproc, "tee"), args.log_dir,
                      run_id)
    for bits in list(spec.redirects.values()) + list(spec.tee.values()):
        if bits not in (0, STDOUT, STDERR, STDOUT | STDERR):
            raise ValueError(f"--redirects/--tee values are 0-3, got {bits}")
    return spec, params


def run(args: argparse.Namespace) -> int:
    spec, params = config_from_args(args)
    agent = LocalElasticAgent(spec, make_rendezvous(params))
    return agent.run()


def main(args=None) -> None:
    parsed = parse_args(args)
    try:
        code = run(parsed)
    except ChildFailedError as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr, flush=True)
        raise SystemExit(1) from None
    except ValueError as e:
        print(f"emberrun: error: {e}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    raise SystemExit(code)


if __name__ == "__main__":
    main()
