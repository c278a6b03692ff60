"""Training runs for DDP's bucket rebuild and ZeroRedundancyOptimizer(overlap_with_ddp=True), importable by the
worker processes (one scenario each under RANK/WORLD_SIZE, printing a JSON line) and by the test process,
which computes the single-process references with the same model and data."""
from __future__ import annotations

import json

import numpy as np

import ember
import ember.nn as nn
from ddp_scenarios import _init, data, shard

STEPS = 6


class OutOfOrder(nn.Module):
    """Layers registered in the reverse of their use: DDP's first buckets (from the last registered parameter)
    hold the layer whose gradients arrive last, until the rebuild refills them in arrival order."""

    def __init__(self):
        super().__init__()
        ember.manual_seed(0)
        self.last = nn.Linear(16, 3)   # parameters 0, 1
        self.mid = nn.Linear(16, 16)   # parameters 2, 3
        self.first = nn.Linear(6, 16)  # parameters 4, 5

    def forward(self, x):
        return self.last(ember.tanh(self.mid(ember.tanh(self.first(x)))))


def params(model) -> list:
    return [p.detach().tolist() for p in getattr(model, "module", model).parameters()]


def loss_of(model, x, y):
    return ((model(x) - y) ** 2).mean()


def single_process(optimizer: str, first_update: int = 0):
    """The reference: one process on the whole global batch, updating from step first_update on."""
    model = OutOfOrder()
    opt = make_optimizer(optimizer, model.parameters())
    for step in range(STEPS):
        opt.zero_grad()
        x, y = data(step)
        loss_of(model, x, y).backward()
        if step >= first_update:
            opt.step()
    return params(model)


def make_optimizer(name: str, parameters, cls_only: bool = False):
    cls, kw = (ember.optim.Adam, {"lr": 0.05}) if name == "adam" else (ember.optim.SGD, {"lr": 0.1, "momentum": 0.9})
    return (cls, kw) if cls_only else cls(parameters, **kw)


def run_rebuild(as_view: bool = False):
    """DDP with one bucket per layer: records each launch's bucket (as parameter indices) and whether the first
    layer's gradient existed yet, per step."""
    from ember.distributed.algorithms.ddp_comm_hooks import default_hooks
    from ember.nn.parallel import DistributedDataParallel as DDP
    rank, world = _init()
    model = OutOfOrder()
    ddp = DDP(model, bucket_cap_mb=0.0001, gradient_as_bucket_view=as_view)
    index = {p: i for i, p in enumerate(model.parameters())}
    launches: list = []

    def recording_hook(state, bucket):
        first_done = model.first.weight.grad is not None and bool((model.first.weight.grad != 0).any())
        launches[-1].append([sorted(index[p] for p in bucket.parameters()), first_done])
        return default_hooks.allreduce_hook(state, bucket)

    ddp.register_comm_hook(None, recording_hook)
    opt = make_optimizer("sgd", ddp.parameters())
    buckets = []
    for step in range(STEPS):
        opt.zero_grad()
        x, y = data(step)
        launches.append([])
        loss_of(ddp, shard(x, rank, world), shard(y, rank, world)).backward()
        buckets.append([sorted(b) for b in ddp.reducer.bucket_indices])
        opt.step()
    print(json.dumps({"rank": rank, "params": params(ddp), "buckets": buckets, "launches": launches,
                      "rebuilt": ddp._get_ddp_logging_data()["has_rebuilt_buckets"]}))


def run_zero_overlap(optimizer: str, as_view: bool = False, shard_buckets: bool = False, cap_mb: float = 0.0001,
                     interleaved: bool = False):
    from ember.distributed.algorithms.ddp_comm_hooks import default_hooks
    from ember.distributed.algorithms.ddp_comm_hooks import ddp_zero_hook
    from ember.distributed.optim import ZeroRedundancyOptimizer
    from ember.nn.parallel import DistributedDataParallel as DDP
    rank, world = _init()
    model = OutOfOrder()
    ddp = DDP(model, bucket_cap_mb=cap_mb, gradient_as_bucket_view=as_view)
    cls, kw = make_optimizer(optimizer, None, cls_only=True)
    zero = ZeroRedundancyOptimizer(ddp.parameters(), cls, overlap_with_ddp=True, **kw)
    make_hook = ddp_zero_hook.hook_with_zero_step_interleaved if interleaved else ddp_zero_hook.hook_with_zero_step
    ddp.register_comm_hook(None, make_hook(default_hooks.allreduce_hook, ddp, zero, shard_buckets=shard_buckets))
    for step in range(STEPS):
        zero.zero_grad()
        x, y = data(step)
        loss_of(ddp, shard(x, rank, world), shard(y, rank, world)).backward()
    index = {p: i for i, p in enumerate(model.parameters())}
    owned = sorted(index[p] for group in zero.optim.param_groups for p in group["params"])
    stateful = sorted(index[p] for p in zero.optim.state)
    zero.consolidate_state_dict(to=0)
    out = {"rank": rank, "params": params(ddp), "owned": owned, "stateful": stateful,
           "buckets": [[index[p] for p in zero._ddp_buckets[b]] for b in range(len(zero._ddp_buckets))]}
    if rank == 0:  # the consolidated state loads into a plain optimizer over all the parameters
        plain = cls(model.parameters(), **kw)
        plain.load_state_dict(zero.state_dict())
        out["state_keys"] = sorted(plain.state_dict()["state"])
    print(json.dumps(out))


def max_diff(a: list, b: list) -> float:
    return max(float(np.abs(np.array(x) - np.array(y)).max()) for x, y in zip(a, b))
