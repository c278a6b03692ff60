"""ember.multiprocessing: Python's multiprocessing (the same API: Process, Queue, Pipe, get_context,
set_start_method...) with reducers registered so tensors, nn.Parameters and storages sent through
its queues, pipes and process arguments travel through shared memory: the receiver's tensor views
the sender's memory, so writes on either side are seen by both (Hogwild training shares a model
this way). Also spawn/start_processes with error propagation and the sharing strategies."""
import multiprocessing
import sys
from multiprocessing import *  # noqa: F401,F403

from .._storage_untyped import sharing as _sharing
from .reductions import init_reductions
from .spawn import (  # noqa: F401
    ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException, SpawnContext, spawn,
    start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

if sys.platform in ("darwin", "win32"):
    _all_sharing_strategies = {"file_system"}
    _sharing["strategy"] = "file_system"
else:
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Sets how CPU tensors are shared: 'file_descriptor' (a descriptor passed to the receiver) or
    'file_system' (a /dev/shm name)."""
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}")
    _sharing["strategy"] = new_strategy


def get_sharing_strategy():
    return _sharing["strategy"]


def get_all_sharing_strategies():
    return _all_sharing_strategies


init_reductions()
