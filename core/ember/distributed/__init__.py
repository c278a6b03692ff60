"""ember.distributed: stores for rendezvous (TCPStore, FileStore, HashStore, PrefixStore), process groups on
Gloo, and collectives, with torch.distributed's names and semantics. The stores and the gloo backend are C++
(ember._distributed_C, core/csrc/distributed)."""
from __future__ import annotations

from ember import _distributed_C
from ember._distributed_C import (DistBackendError, DistError, DistNetworkError, DistStoreError, FileStore,
                                  HashStore, PrefixStore, Store, TCPStore)
from ember.distributed._grad_bucket import BuiltinCommHookType, GradBucket
from ember.distributed.collectives import (all_gather_into_tensor, all_to_all, all_to_all_single, gather,
                                           reduce_scatter, reduce_scatter_tensor, scatter)
from ember.distributed.constants import default_pg_timeout
from ember.distributed.distributed_c10d import (Backend, GroupMember, ProcessGroup, ReduceOp, Work, all_gather,
                                                all_reduce, barrier, broadcast, destroy_process_group, get_backend,
                                                get_global_rank, get_group_rank, get_rank, get_world_size,
                                                init_process_group, is_gloo_available, is_initialized,
                                                is_mpi_available, new_group, reduce)
from ember.distributed.object_collectives import (all_gather_object, broadcast_object_list, gather_object,
                                                  scatter_object_list)
from ember.distributed.p2p import P2POp, batch_isend_irecv, irecv, isend, monitored_barrier, recv, send

__all__ = ["Backend", "BuiltinCommHookType", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
           "FileStore", "GradBucket", "GroupMember", "HashStore", "P2POp", "PrefixStore", "ProcessGroup", "ReduceOp",
           "Store", "TCPStore", "Work", "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce",
           "all_to_all", "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list",
           "default_pg_timeout", "destroy_process_group", "gather", "gather_object", "get_backend", "get_global_rank",
           "get_group_rank", "get_rank", "get_world_size", "init_process_group", "irecv", "is_available",
           "is_gloo_available", "is_initialized", "is_mpi_available", "isend", "monitored_barrier", "new_group", "recv",
           "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "scatter_object_list", "send"]

if _distributed_C.has_redis:  # built with hiredis (libhiredis-dev)
    from ember._distributed_C import RedisStore  # noqa: F401 (re-exported)
    __all__.append("RedisStore")


def is_available() -> bool:
    """True: this build has ember.distributed (its stores at least; see is_gloo_available for the backend)."""
    return True
