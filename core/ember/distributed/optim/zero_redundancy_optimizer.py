"""ZeroRedundancyOptimizer (ZeRO stage 1, torch.distributed.optim's): each rank keeps the optimizer state of
only its shard of the parameters (assigned greedily, largest first, to the least-loaded rank), steps that
shard, and broadcasts the updated shard to the others. consolidate_state_dict gathers the shards on one
rank, whose state_dict() is then a plain optimizer's (it loads into optimizer_class over the same
parameters); load_state_dict takes such a dict back. With overlap_with_ddp=True the shards are DDP's gradient
buckets instead, and each is stepped inside DDP's communication hook as soon as its reduction is done (see
ddp_comm_hooks.ddp_zero_hook); step() is then a no-op."""
from __future__ import annotations

import logging

import ember
from ember.distributed.algorithms.join import Join, Joinable, JoinHook, _ProcessGroupJoinable
from ember.optim.optimizer import Optimizer

__all__ = ["ZeroRedundancyOptimizer"]


def _dist():
    from ember import distributed
    return distributed


class _ZeROJoinHook(JoinHook):
    def __init__(self, zero):
        self.zero = zero

    def main_hook(self):
        """A joined rank still sends its shard each step the others take."""
        self.zero._sync_params()


class ZeroRedundancyOptimizer(Optimizer, _ProcessGroupJoinable):
    def __init__(self, params, optimizer_class, process_group=None, parameters_as_bucket_view: bool = False,
                 overlap_with_ddp: bool = False, **defaults):
        if not (isinstance(optimizer_class, type) and issubclass(optimizer_class, Optimizer)):
            raise TypeError(f"optimizer_class must be an ember.optim.Optimizer subclass, got {optimizer_class!r}")
        super().__init__(params, defaults)
        Joinable.__init__(self)
        dist = _dist()
        self.process_group = process_group if process_group is not None else dist.distributed_c10d._default_group()
        self.world_size = dist.get_world_size(self.process_group)
        self.rank = dist.get_rank(self.process_group)
        self.global_rank = self.rank
        self._optim_constructor = optimizer_class
        self._optim_defaults = defaults
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._all_state_dicts: list = []
        self._overlap_with_ddp = overlap_with_ddp
        self._index_to_param = [p for group in self.param_groups for p in group["params"]]
        self._param_to_index = {p: i for i, p in enumerate(self._index_to_param)}
        if overlap_with_ddp:
            # Sharded by DDP's buckets once they are known (after DDP's bucket rebuild): see _init_overlap.
            self.optim = None
            self._ddp_buckets: dict = {}  # DDP bucket index -> its parameters
            self._shard_buckets = False  # set by hook_with_zero_step
            self._bucket_assignments: list = []  # per DDP bucket: [(first parameter's index, params, rank)]
            return
        self._partition_parameters()
        self._bucket_params()
        self.optim = optimizer_class(self._partitions[self.rank], **defaults)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)

    # -- partition -----------------------------------------------------------------------------------------
    def _init_overlap(self):
        """Shards by DDP bucket (recorded by the hook): bucket b goes whole to rank b % world_size, or with
        shard_buckets split into runs of parameters over the ranks (_shard_buckets); this rank's optimizer takes
        its parameters."""
        known = {p for params in self._ddp_buckets.values() for p in params}
        missing = [i for i, p in enumerate(self._index_to_param) if p not in known]
        if missing:
            raise RuntimeError(f"ZeroRedundancyOptimizer(overlap_with_ddp=True): parameters {missing} are in no DDP "
                               "bucket: construct it with the DDP model's parameters")
        buckets = [self._ddp_buckets[b] for b in range(len(self._ddp_buckets))]
        if self._shard_buckets:
            self._bucket_assignments = self._shard_buckets_over_ranks(buckets)
        else:
            self._bucket_assignments = [[(0, params, b % self.world_size)] for b, params in enumerate(buckets)]
        self._param_to_rank = {p: owner for assignments in self._bucket_assignments
                               for _, params, owner in assignments for p in params}
        self._partitions = [[] for _ in range(self.world_size)]
        for group in self.param_groups:
            options = {k: v for k, v in group.items() if k != "params"}
            for r in range(self.world_size):
                self._partitions[r].append({**options, "params": [p for p in group["params"]
                                                                  if self._param_to_rank[p] == r]})
        self.optim = self._optim_constructor(self._partitions[self.rank], **self._optim_defaults)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)

    def _shard_buckets_over_ranks(self, buckets: list) -> list:
        """PyTorch's shard_buckets assignment: buckets from smallest to largest; each is cut, in order, into runs
        of parameters closed before the one that would bring the run to total size / world_size, and each run
        goes to the least-loaded rank that holds no other run of that bucket. Per bucket: (offset, params, rank)."""
        threshold = sum(p.numel() for params in buckets for p in params) / self.world_size
        size_per_rank = [0] * self.world_size
        assignments: list = [[] for _ in buckets]

        def assign(b: int, start: int, end: int, size: int):
            taken = {owner for _, _, owner in assignments[b]}
            free = [r for r in range(self.world_size) if r not in taken]
            if not free:
                raise AssertionError("All indices are disallowed")
            owner = min(free, key=lambda r: size_per_rank[r])
            assignments[b].append((start, buckets[b][start:end], owner))
            size_per_rank[owner] += size

        for b in sorted(range(len(buckets)), key=lambda i: sum(p.numel() for p in buckets[i])):
            start, size = 0, 0
            for i, p in enumerate(buckets[b]):
                if size + p.numel() >= threshold and i > start:
                    assign(b, start, i, size)
                    start, size = i, 0
                size += p.numel()
            assign(b, start, len(buckets[b]), size)
        return assignments

    def _step_bucket(self, params: list, grads: list):
        """The local step of one DDP bucket this rank owns, with its reduced gradients: the optimizer's other
        parameters are hidden (grad None) meanwhile, as their buckets may not be reduced yet."""
        own = set(params)
        saved = [(p, p.grad) for group in self.optim.param_groups for p in group["params"]]
        for p, _ in saved:
            if p not in own:
                p.grad = None
        for p, g in zip(params, grads):
            p.grad = g
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        try:
            self.optim.step()
        finally:
            for p, g in saved:
                p.grad = g

    def _partition_parameters(self):
        sizes = [0] * self.world_size
        self._partitions = [[] for _ in range(self.world_size)]
        self._param_to_rank = {}
        for group in self.param_groups:
            per_rank = [[] for _ in range(self.world_size)]
            for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                owner = sizes.index(min(sizes))
                per_rank[owner].append(p)
                sizes[owner] += p.numel()
                self._param_to_rank[p] = owner
            options = {k: v for k, v in group.items() if k != "params"}
            for r in range(self.world_size):
                self._partitions[r].append({**options, "params": per_rank[r]})
        self._index_to_param = [p for group in self.param_groups for p in group["params"]]
        self._param_to_index = {p: i for i, p in enumerate(self._index_to_param)}

    def _bucket_params(self):
        """With parameters_as_bucket_view, each rank's parameters (per dtype) become views of one flat buffer,
        so a shard's broadcast is one collective without copies."""
        self._buckets = []  # (owner rank, flat tensor or None, params)
        for r in range(self.world_size):
            by_dtype: dict = {}
            for group in self._partitions[r]:
                for p in group["params"]:
                    by_dtype.setdefault(p.dtype, []).append(p)
            for params in by_dtype.values():
                flat = None
                if self.parameters_as_bucket_view:
                    flat = ember.cat([p.detach().reshape(-1) for p in params])
                    offset = 0
                    for p in params:
                        p.data = flat[offset:offset + p.numel()].view(p.shape)
                        offset += p.numel()
                self._buckets.append((r, flat, params))

    @staticmethod
    def _sync_param_groups(source: list, target: list):
        for src, dst in zip(source, target):
            for k, v in src.items():
                if k != "params":
                    dst[k] = v

    def _sync_params(self):
        dist = _dist()
        with ember.no_grad():
            for owner, flat, params in self._buckets:
                if flat is not None:
                    dist.broadcast(flat, owner, group=self.process_group)
                    continue
                joined = ember.cat([p.detach().reshape(-1) for p in params])
                dist.broadcast(joined, owner, group=self.process_group)
                if owner != self.rank:
                    offset = 0
                    for p in params:
                        p.copy_(joined[offset:offset + p.numel()].view(p.shape))
                        offset += p.numel()

    # -- optimizer interface -------------------------------------------------------------------------------
    def step(self, closure=None, **kwargs):
        if self._overlap_with_ddp:  # DDP's hook steps each bucket (PyTorch's message)
            logging.getLogger(__name__).warning(
                "`step()` should not be included in the training loop when `overlap_with_ddp=True`")
            return None
        Join.notify_join_context(self)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        loss = self.optim.step(closure=closure, **kwargs) if closure is not None else self.optim.step(**kwargs)
        self._sync_params()
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        return loss

    def zero_grad(self, set_to_none: bool = True):
        super().zero_grad(set_to_none)

    def add_param_group(self, param_group):
        if getattr(self, "_overlap_with_ddp", False):
            raise RuntimeError("ZeroRedundancyOptimizer with overlap_with_ddp=True does not support add_param_group: "
                               "its shards are DDP's buckets")
        super().add_param_group(param_group)
        if hasattr(self, "optim"):  # after construction: re-partition and rebuild the local optimizer
            state = {p: s for p, s in self.optim.state.items()}
            self._partition_parameters()
            self._bucket_params()
            self.optim = self._optim_constructor(self._partitions[self.rank], **self._optim_defaults)
            for p, s in state.items():
                if self._param_to_rank.get(p) == self.rank:
                    self.optim.state[p] = s

    def consolidate_state_dict(self, to: int = 0):
        """Collective: gathers every rank's shard state on rank `to` (for state_dict() there)."""
        self._check_initialized("consolidate_state_dict")
        local = self.optim.state_dict()
        # Local indices become global ones, so the shards merge into a plain optimizer's numbering.
        local_params = [p for group in self.optim.param_groups for p in group["params"]]
        local["state"] = {self._param_to_index[local_params[i]]: v for i, v in local["state"].items()}
        self._all_state_dicts = []
        for r in range(self.world_size):
            box = [local if r == self.rank else None]
            _dist().broadcast_object_list(box, src=r, group=self.process_group)
            if self.rank == to:
                self._all_state_dicts.append(box[0])

    def state_dict(self):
        """The full state in a plain optimizer's format; only on the rank consolidate_state_dict sent it to."""
        if not self._all_state_dicts:
            raise RuntimeError(f"Optimizer state has not been consolidated on this rank. Please call "
                               f"`consolidate_state_dict(to={self.rank})` on all ranks beforehand if you meant to "
                               "save the global state.")
        state = {}
        for shard in self._all_state_dicts:
            state.update(shard["state"])
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [self._param_to_index[p] for p in group["params"]]
            groups.append(packed)
        return {"state": dict(sorted(state.items())), "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Takes a full state dict (this class's or a plain optimizer's over the same parameters)."""
        self._check_initialized("load_state_dict")
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        mine = {i: v for i, v in state_dict["state"].items()
                if self._param_to_rank[self._index_to_param[i]] == self.rank}
        local_params = [p for group in self.optim.param_groups for p in group["params"]]
        local_index = {p: i for i, p in enumerate(local_params)}
        local_groups = []
        for saved, local in zip(groups, self.optim.param_groups):
            packed = {k: v for k, v in saved.items() if k != "params"}
            packed["params"] = [local_index[p] for p in local["params"]]
            local_groups.append(packed)
        self.optim.load_state_dict({"state": {local_index[self._index_to_param[i]]: v for i, v in mine.items()},
                                    "param_groups": local_groups})
        self._sync_param_groups(groups, self.param_groups)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)

    def _check_initialized(self, what: str):
        if self.optim is None:
            raise RuntimeError(f"ZeroRedundancyOptimizer.{what}(): with overlap_with_ddp=True the optimizer is made "
                               "in DDP's communication hook (its second training iteration); call it after that")

    # -- Join ----------------------------------------------------------------------------------------------
    def join_hook(self, **kwargs):
        return _ZeROJoinHook(self)
