"""Training runs for the DDP tests, importable by the worker processes (each runs one scenario under
RANK/WORLD_SIZE and prints its result as a JSON line) and by the test process, which computes the
single-process references with the same models and data."""
from __future__ import annotations

import json
import os
from datetime import timedelta

import numpy as np

import ember
import ember.nn as nn

GLOBAL_BATCH = 8
STEPS = 4


def data(step: int, n: int = GLOBAL_BATCH):
    rng = np.random.default_rng(1000 + step)
    x = rng.normal(size=(n, 6)).astype(np.float32)
    y = rng.normal(size=(n, 3)).astype(np.float32)
    return ember.tensor(x), ember.tensor(y)


def mlp(with_unused: bool = False, norm: str | None = None):
    ember.manual_seed(0)
    layers = [nn.Linear(6, 16)]
    if norm == "bn":
        layers.append(nn.BatchNorm1d(16))
    elif norm == "syncbn":
        layers.append(nn.SyncBatchNorm(16))
    layers += [nn.Tanh(), nn.Linear(16, 3)]
    model = nn.Sequential(*layers)
    return _WithSideBranch(model) if with_unused else model


class _WithSideBranch(nn.Module):
    """A branch used only when asked (even steps): its parameters get no gradient on odd steps."""

    def __init__(self, body):
        super().__init__()
        self.body = body
        self.extra = nn.Linear(6, 3)

    def forward(self, x, use_extra: bool = True):
        out = self.body(x)
        return out + self.extra(x) if use_extra else out


def forward(model, x, step: int, with_unused: bool = False):
    if with_unused:
        return model(x, step % 2 == 0)
    return model(x)


def params(model) -> list:
    inner = getattr(model, "module", model)
    return [p.detach().tolist() for p in inner.parameters()]


def single_process(steps: int = STEPS, with_unused: bool = False, norm: str | None = None, accumulate: int = 1,
                   optimizer: str = "sgd"):
    """The reference: one process training on the whole global batch."""
    model = mlp(with_unused, "bn" if norm == "syncbn" else norm)
    opt = make_optimizer(optimizer, model.parameters())
    for step in range(steps):
        opt.zero_grad()
        for micro in range(accumulate):
            x, y = data(step * accumulate + micro)
            loss = ((forward(model, x, step, with_unused) - y) ** 2).mean() / accumulate
            loss.backward()
        opt.step()
    return model, opt


def make_optimizer(name: str, parameters):
    if name == "adam":
        return ember.optim.Adam(parameters, lr=0.05)
    return ember.optim.SGD(parameters, lr=0.1)


def _init():
    import ember.distributed as dist
    # BACKEND=mpi under mpiexec (dist_launch.launch_mpi): rank and world size from MPI
    dist.init_process_group(os.environ.get("BACKEND", "gloo"),
                            timeout=timedelta(seconds=float(os.environ.get("DDP_TIMEOUT", "60"))))
    return dist.get_rank(), dist.get_world_size()


def shard(t, rank: int, world: int):
    per = t.shape[0] // world
    return t[rank * per:(rank + 1) * per]


def run(scenario: str, **kw):
    from ember.nn.parallel import DistributedDataParallel as DDP
    rank, world = _init()
    out = {"rank": rank}
    with_unused = kw.get("with_unused", False)
    model = mlp(with_unused, kw.get("norm"))
    ddp = DDP(model, bucket_cap_mb=kw.get("bucket_cap_mb", 25), find_unused_parameters=kw.get("find_unused", False),
              gradient_as_bucket_view=kw.get("as_view", False), static_graph=kw.get("static_graph", False))
    if kw.get("hook"):
        _register_hook(ddp, kw["hook"])
    if scenario == "zero":
        from ember.distributed.optim import ZeroRedundancyOptimizer
        opt = ZeroRedundancyOptimizer(ddp.parameters(), ember.optim.Adam, lr=0.05)
    else:
        opt = make_optimizer(kw.get("optimizer", "sgd"), ddp.parameters())
    accumulate = kw.get("accumulate", 1)
    for step in range(kw.get("steps", STEPS)):
        opt.zero_grad()
        for micro in range(accumulate):
            x, y = data(step * accumulate + micro)
            x, y = shard(x, rank, world), shard(y, rank, world)
            if micro < accumulate - 1:
                with ddp.no_sync():
                    (((forward(ddp, x, step, with_unused) - y) ** 2).mean() / accumulate).backward()
            else:
                (((forward(ddp, x, step, with_unused) - y) ** 2).mean() / accumulate).backward()
        if scenario == "kill" and rank == 1 and step == 1:
            os._exit(17)  # dies without a word, mid-training: the others must raise, not hang
        opt.step()
    out["params"] = params(ddp)
    if kw.get("norm") == "syncbn":
        bn = model[1]
        out["running"] = [bn.running_mean.tolist(), bn.running_var.tolist()]
    if scenario == "zero":
        opt.consolidate_state_dict(to=0)
        if rank == 0:
            plain = ember.optim.Adam(model.parameters(), lr=0.05)
            plain.load_state_dict(opt.state_dict())
            state = plain.state_dict()["state"]
            out["adam_state"] = {str(k): [v["exp_avg"].tolist(), v["exp_avg_sq"].tolist()] for k, v in state.items()}
    if kw.get("hook") == "powersgd_rank1":
        out["error"] = {str(k): v.tolist() for k, v in ddp._comm_hook[0].error_dict.items()}
    print(json.dumps(out))


def _register_hook(ddp, name: str):
    from ember.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook as psgd
    if name == "allreduce":
        ddp.register_comm_hook(None, default_hooks.allreduce_hook)
    elif name == "fp16":
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
    elif name == "bf16":
        ddp.register_comm_hook(None, default_hooks.bf16_compress_hook)
    elif name == "powersgd_full":
        state = psgd.PowerSGDState(None, matrix_approximation_rank=16, start_powerSGD_iter=2, min_compression_rate=0)
        ddp.register_comm_hook(state, psgd.powerSGD_hook)
    elif name == "batched_powersgd_full":
        state = psgd.PowerSGDState(None, matrix_approximation_rank=64, start_powerSGD_iter=2, min_compression_rate=0)
        ddp.register_comm_hook(state, psgd.batched_powerSGD_hook)
    elif name == "powersgd_rank1":
        state = psgd.PowerSGDState(None, matrix_approximation_rank=1, start_powerSGD_iter=2, min_compression_rate=0)
        ddp.register_comm_hook(state, psgd.powerSGD_hook)


def run_join(throw: bool = False, divide_by_initial_world_size: bool = True):
    """Rank r has 2 + 2r batches; Join shadows the missing ones."""
    from ember.distributed.algorithms.join import Join
    from ember.nn.parallel import DistributedDataParallel as DDP
    rank, world = _init()
    ddp = DDP(mlp())
    opt = make_optimizer("sgd", ddp.parameters())
    try:
        with Join([ddp], throw_on_early_termination=throw, divide_by_initial_world_size=divide_by_initial_world_size):
            for step in range(2 + 2 * rank):
                opt.zero_grad()
                x, y = data(step)
                x, y = shard(x, rank, world), shard(y, rank, world)
                ((ddp(x) - y) ** 2).mean().backward()
                opt.step()
    except RuntimeError as e:
        print(json.dumps({"rank": rank, "error": str(e)}))
        return
    print(json.dumps({"rank": rank, "params": params(ddp)}))


def join_reference(world: int = 2, divide_by_initial_world_size: bool = True):
    """One process: step s averages the losses of the ranks that still have a batch at s over all ranks (or, with
    divide_by_initial_world_size=False, over those ranks only)."""
    model = mlp()
    opt = make_optimizer("sgd", model.parameters())
    for step in range(2 + 2 * (world - 1)):
        opt.zero_grad()
        x, y = data(step)
        loss = 0
        active = [r for r in range(world) if step < 2 + 2 * r]
        for r in active:
            divisor = world if divide_by_initial_world_size else len(active)
            loss = loss + ((model(shard(x, r, world)) - shard(y, r, world)) ** 2).mean() / divisor
        loss.backward()
        opt.step()
    return params(model)


def run_powersgd_fixed(steps: int = 60):
    """Rank-1 PowerSGD on gradients that do not change (no update): prints the first compressed step's
    applied gradients and their mean over `steps` compressed steps."""
    from ember.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as psgd
    from ember.nn.parallel import DistributedDataParallel as DDP
    rank, world = _init()
    ddp = DDP(mlp())
    ddp.register_comm_hook(psgd.PowerSGDState(None, matrix_approximation_rank=1, start_powerSGD_iter=2,
                                              min_compression_rate=0), psgd.powerSGD_hook)
    x, y = data(0)
    x, y = shard(x, rank, world), shard(y, rank, world)
    first, total = None, None
    for step in range(2 + steps):
        for p in ddp.parameters():
            p.grad = None
        ((ddp(x) - y) ** 2).mean().backward()
        if step >= 2:
            grads = [p.grad.clone() for p in ddp.parameters()]
            first = first or [g.tolist() for g in grads]
            total = grads if total is None else [a + g for a, g in zip(total, grads)]
    print(json.dumps({"rank": rank, "first": first, "mean": [(t / steps).tolist() for t in total]}))
