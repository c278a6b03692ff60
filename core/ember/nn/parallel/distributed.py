"""DistributedDataParallel: each rank runs the whole module on its share of the batch; after backward every
rank holds the gradients averaged over the group. The reduction is C++ (ember._C._ddp.Reducer, see
core/csrc/ddp/reducer.h): gradients go into buckets that are all-reduced (or handed to a comm hook) while
backward still runs. Semantics and messages are PyTorch's torch.nn.parallel.DistributedDataParallel."""
from __future__ import annotations

import warnings
import zlib
from contextlib import contextmanager

import ember
from ember import _C
from ember.distributed.algorithms.join import Join, Joinable, JoinHook, _ProcessGroupJoinable
from ember.nn.modules.module import Module

from ._ddp_buckets import bucket_assignment, output_tensors

__all__ = ["DistributedDataParallel"]


def _dist():
    from ember import distributed
    return distributed


class _DDPJoinHook(JoinHook):
    """A joined rank's share of each iteration the others still train: the same buffer broadcast and
    gradient all-reduces (of zeros); at the end, every rank takes the last joiner's parameters."""

    def __init__(self, ddp, divide_by_initial_world_size: bool):
        self.ddp = ddp
        # False: the active ranks' forwards divide their gradients by how many ranks are still active (the sum
        # Join's notification all-reduces), not by the initial world size
        ddp._divide_by_initial_world_size = divide_by_initial_world_size

    def main_hook(self):
        # The same collectives, in the same order, as an active rank's forward and backward.
        ddp = self.ddp
        should_sync = ddp._global_requires_backward_grad_sync(joined=True)
        ddp._sync_buffers_if_needed(joined=True)
        if should_sync:
            ddp._rebuild_buckets()  # as the active ranks' forward does, with the same broadcast
            ddp._synced_iterations += 1
            ddp.reducer.reduce_zero_buckets()

    def post_hook(self, is_last_joiner: bool):
        ddp = self.ddp
        ddp._authoritative_rank = ddp._find_common_rank(ddp._rank, is_last_joiner)
        ddp._sync_module_states(ddp._authoritative_rank, buffers=ddp.forward_sync_buffers)


def _buffer_sync_flags(broadcast_buffers, forward_sync_buffers) -> bool:
    """PyTorch 2.13's deprecation of broadcast_buffers (its warnings): whether buffers are synced at
    initialization when forward_sync_buffers is not given (the deprecated flag then decides both)."""
    if broadcast_buffers is not None:
        if forward_sync_buffers is not None:
            warnings.warn("Both `broadcast_buffers` and `forward_sync_buffers` were specified. `broadcast_buffers` is "
                          "deprecated and its value is ignored when `forward_sync_buffers` is provided.",
                          FutureWarning, stacklevel=3)
        else:
            warnings.warn("`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. IMPORTANT: unlike "
                          "`broadcast_buffers=False`, `forward_sync_buffers=False` still syncs buffers at init. If you "
                          "rely on buffers NOT being synced at init (e.g. rank-local buffers), keep using "
                          "`broadcast_buffers=False` until `init_sync_buffers` is available.", FutureWarning,
                          stacklevel=3)
    return True if broadcast_buffers is None else bool(broadcast_buffers)


class DistributedDataParallel(Module, _ProcessGroupJoinable):
    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0, broadcast_buffers=None,
                 init_sync: bool = True, process_group=None, bucket_cap_mb=None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params: bool = False, bucket_cap_mb_list=None,
                 batched_grad_copy: bool = False, forward_sync_buffers=None):
        super().__init__()
        Joinable.__init__(self)
        dist = _dist()
        params = [p for _, p in module.named_parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that "
                               "requires a gradient.")
        devices = {p.device for p in module.parameters()}
        if device_ids is not None or output_device is not None:
            if any(d.type == "cpu" for d in devices):
                raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                                 "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                                 f"{device_ids}, output_device {output_device}, and module parameters {devices}.")
        for name in ("delay_all_reduce_named_params", "param_to_hook_all_reduce", "mixed_precision", "device_mesh"):
            if locals()[name] is not None:
                raise ValueError(f"DistributedDataParallel: {name} is not supported by ember's DDP")
        if skip_all_reduce_unused_params:
            raise ValueError("DistributedDataParallel: skip_all_reduce_unused_params is not supported by ember's DDP")
        init_sync_buffers = _buffer_sync_flags(broadcast_buffers, forward_sync_buffers)
        self.forward_sync_buffers = init_sync_buffers if forward_sync_buffers is None else forward_sync_buffers
        init_sync_buffers = True if forward_sync_buffers is not None else init_sync_buffers
        self.module = module
        self.process_group = process_group if process_group is not None else dist.distributed_c10d._default_group()
        self.dim = dim
        self.device_ids = None
        self.output_device = None
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        # ember's reducer copies each gradient into its bucket once, as it arrives: batched_grad_copy (PyTorch's
        # deferral of those copies into one per bucket, a kernel-launch saving) changes no result, only kept
        self.batched_grad_copy = batched_grad_copy
        self._bucket_limits = [int(mb * 1024 * 1024) for mb in bucket_cap_mb_list] if bucket_cap_mb_list else None
        cap_mb = max(bucket_cap_mb_list) if bucket_cap_mb_list else 25 if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * 1024 * 1024)
        self._rank = dist.get_rank(self.process_group)
        self._world_size = dist.get_world_size(self.process_group)
        self._authoritative_rank = 0
        self._comm_hook = None
        self._module_copies = [module]
        self._params = params
        self._verify_param_shape_across_processes()
        if init_sync:
            self._sync_module_states(0, buffers=init_sync_buffers)
        self._has_rebuilt_buckets = False
        self._synced_iterations = 0  # forwards (or Join shadows) whose backward was reduced
        self._divide_by_initial_world_size = True  # set by Join's hook
        self._div_factor = self._world_size  # what the default reduction divides the gradients by
        self._make_reducer(bucket_assignment(params, self.bucket_bytes_cap / (1024 * 1024),
                                             limits=self._bucket_limits))

    def _make_reducer(self, buckets: list[list[int]]):
        self.reducer = _C._ddp.Reducer(self._params, buckets, self._default_launch, self._usage_sum,
                                       self.gradient_as_bucket_view, self.find_unused_parameters, self.static_graph,
                                       self._rank)
        if self._comm_hook is not None:
            self.reducer.set_launch(self._hook_launch)

    def _rebuild_buckets(self) -> bool:
        """Once, before the second reduced backward (PyTorch's Reducer::rebuild_buckets): buckets refilled in the
        order the first one's gradients became ready, so the first bucket is the first one complete and its
        reduction starts early. Every rank takes rank 0's order (the buckets must match). Not with
        find_unused_parameters (the set of gradients may change per iteration), unless static_graph. Collective:
        every rank calls it at the same point of the same iteration (a joined rank from its Join hook)."""
        if self._has_rebuilt_buckets or self._synced_iterations < 1 or (self.find_unused_parameters and
                                                                         not self.static_graph):
            return False
        self._has_rebuilt_buckets = True
        order = list(self.reducer.ready_order)
        if self._world_size > 1:
            dist = _dist()
            shared = ember.tensor(order if len(order) == len(self._params) else [-1] * len(self._params),
                                  dtype=ember.int64)
            dist.broadcast(shared, group=self.process_group, group_src=0)
            order = shared.tolist()
        if sorted(order) != list(range(len(self._params))):
            return False  # rank 0 never finished a reduced backward (it joined at once): keep the buckets
        buckets = bucket_assignment(self._params, self.bucket_bytes_cap / (1024 * 1024), order=order,
                                    limits=self._bucket_limits)
        if buckets != [list(b) for b in self.reducer.bucket_indices]:
            self._make_reducer(buckets)
        return True

    # -- set-up --------------------------------------------------------------------------------------------
    def _verify_param_shape_across_processes(self):
        dist = _dist()
        shapes = ";".join(f"{tuple(p.shape)}:{p.dtype}" for p in self._params).encode()
        mine = ember.tensor([len(self._params), zlib.crc32(shapes)], dtype=ember.int64)
        everyone = [ember.zeros(2, dtype=ember.int64) for _ in range(self._world_size)]
        dist.all_gather(everyone, mine, group=self.process_group)
        for r, theirs in enumerate(everyone):
            if int(theirs[0]) != len(self._params):
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank {self._rank} has "
                                   f"{len(self._params)} params, while rank {r} has inconsistent {int(theirs[0])} "
                                   "params.")
            if int(theirs[1]) != int(mine[1]):
                raise RuntimeError(f"DDP expects same model across all ranks, but rank {r} has parameters whose "
                                   f"shapes or dtypes differ from rank {self._rank}'s.")

    def _broadcast_coalesced(self, tensors: list, src: int):
        """One broadcast per dtype of every tensor's values, flattened together."""
        dist = _dist()
        by_dtype: dict = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        with ember.no_grad():
            for group in by_dtype.values():
                flat = ember.cat([t.detach().reshape(-1) for t in group])
                dist.broadcast(flat, src, group=self.process_group)
                offset = 0
                for t in group:
                    t.copy_(flat[offset:offset + t.numel()].view(t.shape))
                    offset += t.numel()

    @property
    def broadcast_buffers(self) -> bool:
        """PyTorch 2.13's deprecated name of forward_sync_buffers."""
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value: bool) -> None:
        self.forward_sync_buffers = value

    def _sync_module_states(self, src: int, buffers: bool = True):
        state = [p for p in self.module.parameters()] + ([b for b in self.module.buffers()] if buffers else [])
        if state and self._world_size > 1:
            self._broadcast_coalesced(state, src)

    def _sync_buffers_if_needed(self, joined: bool = False):
        """Broadcasts the buffers from the authoritative rank (rank 0; under Join, the largest rank still
        training, since joined ranks' buffers are stale)."""
        buffers = list(self.module.buffers())
        if not (self.forward_sync_buffers and buffers and self._world_size > 1):
            return
        src = self._authoritative_rank
        if self._join_config.enable:
            src = self._find_common_rank(self._rank, not joined)
        self._broadcast_coalesced(buffers, src)

    def _find_common_rank(self, rank: int, rank_cond: bool) -> int:
        """The largest rank among those passing rank_cond=True."""
        dist = _dist()
        r = ember.tensor([rank if rank_cond else -1], dtype=ember.int64)
        dist.all_reduce(r, op=dist.ReduceOp.MAX, group=self.process_group)
        if int(r.item()) == -1:
            raise ValueError("BUG! Expected rank_cond to be true for at least one process.")
        return int(r.item())

    def _global_requires_backward_grad_sync(self, joined: bool) -> bool:
        dist = _dist()
        flag = ember.tensor([0 if joined or not self.require_backward_grad_sync else 1], dtype=ember.int64)
        dist.all_reduce(flag, group=self.process_group)
        return int(flag.item()) > 0

    # -- communication -------------------------------------------------------------------------------------
    def _default_launch(self, index: int, flat):
        dist = _dist()
        flat.div_(self._div_factor)
        work = dist.all_reduce(flat, group=self.process_group, async_op=True)

        def wait():
            work.wait()
            return flat
        return wait

    def _hook_launch(self, index: int, flat):
        state, hook = self._comm_hook
        bucket = _dist().GradBucket(index, len(self.reducer.bucket_indices), flat,
                                    [self._params[i] for i in self.reducer.bucket_indices[index]])
        future = hook(state, bucket)
        if not hasattr(future, "wait"):
            raise RuntimeError(f"DDP communication hook must return an ember.futures.Future, got "
                               f"{type(future).__name__}")
        return future.wait

    def _usage_sum(self, used):
        dist = _dist()
        dist.all_reduce(used, group=self.process_group)
        return used

    def register_comm_hook(self, state, hook):
        """hook(state, bucket: GradBucket) -> Future whose value is the bucket's reduced flat gradient."""
        if not callable(hook):
            raise TypeError(f"Communication hook must be callable, got {type(hook).__name__}")
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self._comm_hook = (state, hook)
        self.reducer.set_launch(self._hook_launch)

    def _register_builtin_comm_hook(self, comm_hook_type):
        from ember.distributed.algorithms.ddp_comm_hooks import default_hooks
        dist = _dist()
        hooks = {dist.BuiltinCommHookType.ALLREDUCE: default_hooks.allreduce_hook,
                 dist.BuiltinCommHookType.FP16_COMPRESS: default_hooks.fp16_compress_hook}
        self.register_comm_hook(self.process_group, hooks[comm_hook_type])

    # -- training ------------------------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        notify = Join.notify_join_context(self)
        grad_sync = ember.is_grad_enabled() and self.require_backward_grad_sync
        if self._join_config.enable:
            self._global_requires_backward_grad_sync(joined=False)
        if self.require_forward_param_sync or self._join_config.enable:
            self._sync_buffers_if_needed()
        output = self.module(*inputs, **kwargs)
        if grad_sync:
            self.require_forward_param_sync = True
            self._rebuild_buckets()
            self._synced_iterations += 1
            self.reducer.prepare_for_backward(output_tensors(output))
        else:
            self.require_forward_param_sync = False
        self._div_factor = self._world_size
        if notify is not None:
            notify.wait()  # its sum is the number of ranks that have not joined
            if not self._divide_by_initial_world_size and not self._join_config.throw_on_early_termination:
                self._div_factor = int(notify.result()[0].item())
        return output

    @contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the first backward outside reduces the accumulated sum."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True,
             throw_on_early_termination: bool = False):
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        return _DDPJoinHook(self, kwargs.get("divide_by_initial_world_size", True))

    def _get_ddp_logging_data(self):
        return {"world_size": self._world_size, "bucket_cap_bytes": self.bucket_bytes_cap,
                "num_buckets": len(self.reducer.bucket_indices), "find_unused_parameters": self.find_unused_parameters,
                "gradient_as_bucket_view": self.gradient_as_bucket_view, "static_graph": self.static_graph,
                "has_rebuilt_buckets": int(self._has_rebuilt_buckets),
                "comm_hook": None if self._comm_hook is None else getattr(self._comm_hook[1], "__qualname__", "")}

    def _set_static_graph(self):
        raise RuntimeError("pass static_graph=True to DistributedDataParallel's constructor")
