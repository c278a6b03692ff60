"""ZeroRedundancyOptimizer stepped inside DDP's communication (torch's ddp_zero_hook.hook_with_zero_step): each
gradient bucket, once reduced, is stepped by the rank that owns it, and its updated parameters are broadcast to the
others, while later buckets are still being reduced. As PyTorch's, the first two iterations update nothing: the
first runs before DDP rebuilds its buckets (in gradient order), the second records those buckets, after which
ZeRO shards its parameters by bucket (bucket b to rank b % world_size, or with shard_buckets=True each bucket cut
into runs of parameters spread over the ranks, PyTorch's size-balancing assignment).

PyTorch 2.13 refuses this hook on gloo (RuntimeError: "Gloo backend using Overlapping DDP with ZeRO may meet
hangs", its issue 62300). Here the steps and broadcasts run in the futures' callbacks, which ember runs in the
reducer's finalize on the thread that ran backward, bucket after bucket in the same order on every rank, so gloo
(ember's only CPU backend besides MPI) takes it like any other hook."""
from __future__ import annotations

import ember

__all__ = ["hook_with_zero_step", "hook_with_zero_step_interleaved"]


def _dist():
    from ember import distributed
    return distributed


def hook_with_zero_step(hook, ddp, zero, shard_buckets: bool = False):
    """A DDP comm hook: `hook` (e.g. default_hooks.allreduce_hook) reduces each bucket, then zero's owner of the
    bucket steps it. `zero` must be a ZeroRedundancyOptimizer(..., overlap_with_ddp=True) over ddp's parameters;
    register the result with ddp.register_comm_hook(state, ...) and leave zero.step() out of the loop."""
    if not getattr(zero, "_overlap_with_ddp", False):
        raise ValueError("ZeroRedundancyOptimizer must be constructed with `overlap_with_ddp=True` to use this hook "
                         "properly")
    zero._shard_buckets = bool(shard_buckets)  # each bucket's parameters split over possibly several ranks
    pending: list = []  # this iteration's parameter broadcasts: (work, flat, params, owner)

    def hook_with_zero_fn(state, bucket):
        fut = hook(state, bucket)
        if not ddp._has_rebuilt_buckets:
            return fut  # the first iteration: DDP's buckets are not final yet
        if zero.optim is None:  # the second: learn the buckets, shard by them after the last
            zero._ddp_buckets[bucket.index()] = bucket.parameters()
            if bucket.is_last():
                zero._init_overlap()
            return fut
        assignments = zero._bucket_assignments[bucket.index()]
        params = bucket.parameters()

        def step_and_share(done):
            reduced = done.value()
            if isinstance(reduced, (list, tuple)):
                reduced = reduced[0]
            grads, offset = [], 0
            for p in params:
                grads.append(reduced[offset:offset + p.numel()].view(p.shape))
                offset += p.numel()
            for start, owned, owner in assignments:  # this rank's runs of the bucket, stepped here
                if owner == zero.rank:
                    with ember.no_grad():
                        zero._step_bucket(owned, grads[start:start + len(owned)])
            for _, owned, owner in assignments:  # every run, from its owner to the others
                with ember.no_grad():
                    flat = ember.cat([p.detach().reshape(-1) for p in owned])
                work = _dist().broadcast(flat, group=zero.process_group, group_src=owner, async_op=True)
                pending.append((work, flat, owned, owner))
            if bucket.is_last():  # every bucket's parameters are home before backward returns
                with ember.no_grad():
                    for work, shared, ps, src in pending:
                        work.wait()
                        if src != zero.rank:
                            offset = 0
                            for p in ps:
                                p.copy_(shared[offset:offset + p.numel()].view(p.shape))
                                offset += p.numel()
                pending.clear()
            return reduced
        return fut.then(step_and_share)

    return hook_with_zero_fn


def hook_with_zero_step_interleaved(hook, ddp, zero, shard_buckets: bool = False):
    """PyTorch's other schedule of the same step: each bucket stepped as soon as its reduction is done, between
    the other buckets' reductions. That is how ember's hook_with_zero_step already runs (its futures' callbacks
    run in bucket order when the reducer finalizes), so both names give the same hook and the same results."""
    return hook_with_zero_step(hook, ddp, zero, shard_buckets=shard_buckets)
