"""Issue 28's DDP target: a ResNet-18 training step at batch 8 per rank on 2 ranks (gloo, loopback, one
intra-op thread per rank so the two ranks share the 2 cores) no slower than PyTorch's DDP. Each
measurement launches the two ranks afresh and reports rank 0's median step after warm-up."""
from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys

from .runner import Case, ember_and_torch

ROOT = pathlib.Path(__file__).resolve().parents[2]

_WORKER = """
import json, os, statistics, sys, time
lib = sys.argv[1]
if lib == "ember":
    import ember as t, ember.nn as nn, ember.nn.functional as F, ember.distributed as dist
    from ember.nn.parallel import DistributedDataParallel as DDP
else:
    import torch as t, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
from tools.bench.nn_conv import _resnet18
t.set_num_threads(1)
dist.init_process_group("gloo")
t.manual_seed(0)
model = DDP(_resnet18(t, nn, F))
opt = t.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x, y = t.randn(8, 3, 224, 224), t.randint(0, 1000, (8,))
times = []
for i in range(7):
    t0 = time.perf_counter()
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
    times.append(time.perf_counter() - t0)
dist.destroy_process_group()
print(json.dumps(statistics.median(times[2:]) * 1e3))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ddp_step(lib: str):
    def measure() -> float:
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()), WORLD_SIZE="2",
                   OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        procs = [subprocess.Popen([sys.executable, "-c", _WORKER, lib], env=dict(env, RANK=str(r)), cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(2)]
        outs = [p.communicate(timeout=600) for p in procs]
        for p, (out, err) in zip(procs, outs):
            if p.returncode != 0:
                raise RuntimeError(f"{lib} DDP worker failed:\n{err[-2000:]}")
        return json.loads(outs[0][0].strip().splitlines()[-1])
    return measure


def cases():
    return [Case("DDP ResNet-18 step, batch 8 per rank, 2 ranks (gloo)", "ms", False, ember_and_torch(_ddp_step),
                 target="no slower than PyTorch's DDP", meets=lambda e, p: e <= p.get("torch", float("inf")))]
