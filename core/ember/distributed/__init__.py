"""ember.distributed: stores for rendezvous (TCPStore, FileStore, HashStore, PrefixStore) with
torch.distributed's names and semantics. The stores are C++ (ember._distributed_C, core/csrc/distributed)."""
from __future__ import annotations

from ember._distributed_C import (DistError, DistNetworkError, DistStoreError, FileStore, HashStore, PrefixStore,
                                  Store, TCPStore)

__all__ = ["DistError", "DistNetworkError", "DistStoreError", "FileStore", "HashStore", "PrefixStore", "Store",
           "TCPStore", "is_available"]


def is_available() -> bool:
    """True: this build has ember.distributed."""
    return True
