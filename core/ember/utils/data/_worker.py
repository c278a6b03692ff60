"""What runs inside a DataLoader worker process: its identity (get_worker_info), seeding, the
fetch loop, and how a worker's exception travels to the main process (ExceptionWrapper)."""
from __future__ import annotations

import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass

from . import _shared_memory
from ._fetch import create_fetcher

# How often an idle worker checks that its parent is still alive (seconds).
_STATUS_CHECK_INTERVAL = 1.0


class WorkerInfo:
    """id, num_workers, seed and dataset (this worker's copy) of the current worker; read-only."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker: its WorkerInfo (id, num_workers, seed, dataset); None in the main
    process. Use it in IterableDataset.__iter__ to shard, or in worker_init_fn."""
    return _worker_info


class KeyErrorMessage(str):
    """KeyError quotes its message with repr(); this keeps the traceback's newlines readable."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception with its formatted traceback, picklable across processes."""

    def __init__(self, exc_info=None, where: str = "in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_type_name = self.exc_type.__name__
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where
        try:  # the type must be importable in the main process; otherwise fall back to RuntimeError
            pickle.loads(pickle.dumps(self.exc_type))
        except Exception:
            self.exc_type = RuntimeError

    def reraise(self):
        msg = f"Caught {self.exc_type_name} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # a type that cannot be built from one message
            raise RuntimeError(msg) from None
        raise exception


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    """A worker's iterable dataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """Persistent workers: start a new epoch (recreate the fetcher)."""


def _seed_everything(seed: int, worker_id: int, base_seed: int) -> None:
    import ember
    random.seed(seed)
    ember.manual_seed(seed)
    if "numpy" in sys.modules:
        import numpy as np
        # NumPy's legacy seed takes 32-bit words; mix worker id and base seed through SeedSequence.
        np.random.seed(np.random.SeedSequence([worker_id, base_seed % (1 << 64)]).generate_state(4))


def worker_loop(is_iterable, dataset, index_queue, result_queue, done_event, auto_collation,
                collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers, shm_prefix):
    global _worker_info
    # Ctrl-C goes to the whole process group; the main process decides how to shut workers down.
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    seed = base_seed + worker_id
    _seed_everything(seed, worker_id, base_seed)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    where = f"in DataLoader worker process {worker_id}"

    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = ExceptionWrapper(where=where)
        fetcher = None

    pool = _shared_memory.BlockPool(shm_prefix, worker_id) if _shared_memory.available() else None
    try:
        _serve(is_iterable, dataset, index_queue, result_queue, done_event, auto_collation, collate_fn,
               drop_last, worker_id, parent, where, fetcher, init_error, pool)
    finally:
        if pool is not None:  # the main process maps what it still uses; the names can go
            pool.close()


def _serve(is_iterable, dataset, index_queue, result_queue, done_event, auto_collation, collate_fn,
           drop_last, worker_id, parent, where, fetcher, init_error, pool):
    iteration_end = False
    while True:
        try:
            task = index_queue.get(timeout=_STATUS_CHECK_INTERVAL)
        except queue.Empty:
            if os.getppid() != parent:  # orphaned: the main process is gone
                break
            continue
        if task is None:  # shutdown
            break
        if isinstance(task, ResumeIteration):
            result_queue.put((task, None))
            iteration_end = False
            if init_error is None:
                fetcher = create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
            continue
        if done_event.is_set() or iteration_end:
            continue  # nothing more to send; keep draining until told to stop
        idx, index, freed = task
        if pool is not None and freed:
            pool.release(freed)
        if init_error is not None:
            data, init_error = init_error, None
        else:
            try:
                data = fetcher.fetch(index)
            except StopIteration:
                if not is_iterable:
                    data = ExceptionWrapper(where=where)
                else:
                    data = IterableDatasetStopIteration(worker_id)
                    iteration_end = True
            except Exception:
                data = ExceptionWrapper(where=where)
        _send(result_queue, idx, data, pool, worker_id, where)
        del data


def _send(result_queue, idx, data, pool, worker_id, where):
    if isinstance(data, (ExceptionWrapper, IterableDatasetStopIteration)) or pool is None:
        msg = ("obj", data)
    else:
        try:
            msg = ("shm", worker_id) + pool.pack(data)
        except Exception:
            msg = ("obj", ExceptionWrapper(where=where))
    try:
        result_queue.put((idx, msg))
    except Exception:  # e.g. an unpicklable batch without shared memory
        if msg[0] == "shm" and msg[2] is not None:
            pool.release([msg[2]])
        result_queue.put((idx, ("obj", ExceptionWrapper(where=where))))
