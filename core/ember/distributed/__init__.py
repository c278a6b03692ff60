"""ember.distributed: stores for rendezvous (TCPStore, FileStore, HashStore, PrefixStore), process groups on
Gloo, and collectives, with torch.distributed's names and semantics. The stores and the gloo backend are C++
(ember._distributed_C, core/csrc/distributed)."""
from __future__ import annotations

from ember._distributed_C import (DistBackendError, DistError, DistNetworkError, DistStoreError, FileStore,
                                  HashStore, PrefixStore, Store, TCPStore)
from ember.distributed._grad_bucket import BuiltinCommHookType, GradBucket
from ember.distributed.constants import default_pg_timeout
from ember.distributed.distributed_c10d import (Backend, GroupMember, ProcessGroup, ReduceOp, Work, all_gather,
                                                all_reduce, barrier, broadcast, destroy_process_group, get_backend,
                                                get_rank, get_world_size, init_process_group, is_gloo_available,
                                                is_initialized, reduce)

__all__ = ["Backend", "BuiltinCommHookType", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
           "FileStore", "GradBucket", "GroupMember", "HashStore", "PrefixStore", "ProcessGroup", "ReduceOp", "Store",
           "TCPStore", "Work",
           "all_gather", "all_reduce", "barrier", "broadcast", "default_pg_timeout", "destroy_process_group",
           "get_backend", "get_rank", "get_world_size", "init_process_group", "is_available", "is_gloo_available",
           "is_initialized", "reduce"]


def is_available() -> bool:
    """True: this build has ember.distributed (its stores at least; see is_gloo_available for the backend)."""
    return True
