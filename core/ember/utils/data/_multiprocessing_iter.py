"""The multi-process DataLoader iterator: one index queue per worker, one result queue, at most
prefetch_factor * num_workers tasks in flight, a reorder buffer so batches come out in sampler
order, and a shutdown that always leaves no worker process and no shared-memory block behind
(normal end, early exit, error, garbage collection, interpreter exit)."""
from __future__ import annotations

import atexit
import collections
import itertools
import multiprocessing
import multiprocessing.connection
import time
import weakref

from . import _shared_memory
from ._worker import ExceptionWrapper, IterableDatasetStopIteration, ResumeIteration, worker_loop
from ._iterators import _BaseDataLoaderIter

_loader_ids = itertools.count()
_live_iterators: "weakref.WeakSet[_MultiProcessingDataLoaderIter]" = weakref.WeakSet()
_JOIN_TIMEOUT = 5.0


@atexit.register
def _shutdown_all() -> None:
    # Persistent or abandoned iterators still own processes at exit; registered after
    # multiprocessing's own exit hook, so this runs first.
    for it in list(_live_iterators):
        it._shutdown_workers()


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._persistent_workers = loader.persistent_workers
        ctx = loader.multiprocessing_context or multiprocessing
        self._shm_prefix = _shared_memory.new_prefix(next(_loader_ids))
        self._shutdown = False
        self._workers = []
        self._index_queues = []
        self._result_queue = ctx.SimpleQueue()  # put() pickles in the caller: errors surface there
        self._done_event = ctx.Event()
        # Per worker: names of its blocks no tensor views any more, sent back with its next task.
        # (Appended to from weakref finalizers: a deque append needs no lock.)
        self._freed = [collections.deque() for _ in range(self._num_workers)]
        _live_iterators.add(self)
        try:
            for i in range(self._num_workers):
                iq = ctx.Queue()
                iq.cancel_join_thread()  # never block the main process's exit on undelivered indices
                w = ctx.Process(
                    target=worker_loop,
                    args=(self._is_iterable, self._dataset, iq, self._result_queue, self._done_event,
                          self._auto_collation, self._collate_fn, self._drop_last, self._base_seed,
                          loader.worker_init_fn, i, self._num_workers, self._shm_prefix),
                    daemon=True)  # daemonic: multiprocessing terminates them at exit if all else fails
                w.start()
                self._index_queues.append(iq)
                self._workers.append(w)
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0        # next task id to hand out
        self._rcvd_idx = 0        # next task id to yield
        self._task_info = {}      # task id -> (worker,) while pending, (worker, data) once received
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # Persistent workers: new epoch. Stale results of an unfinished epoch are dropped
            # until every worker acknowledges (its queues are FIFO, so nothing stale follows).
            for iq in self._index_queues:
                iq.put(ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                idx, _ = self._get_data()
                if isinstance(idx, ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    # -- task bookkeeping --

    def _try_put_index(self) -> None:
        assert self._tasks_outstanding < self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # next worker that can still take work
            w = next(self._worker_cycle)
            if self._workers_status[w]:
                break
        else:
            return
        freed = self._freed[w]
        names = [freed.popleft() for _ in range(len(freed))]
        self._index_queues[w].put((self._send_idx, index, names))
        self._task_info[self._send_idx] = (w,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _next_data(self):
        if self._shutdown:  # after an error or a timeout: the epoch is over
            raise StopIteration
        while True:
            # Skip tasks given to iterable-dataset workers that have since run dry.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                if len(info) == 2 or self._workers_status[info[0]]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:  # already received out of order
                del self._task_info[self._rcvd_idx]
                return self._process_data(info[1])
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, IterableDatasetStopIteration):
                self._workers_status[data.worker_id] = False
                if not self._persistent_workers:
                    self._index_queues[data.worker_id].put(None)  # that worker may stop now
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            return self._process_data(data)

    def _process_data(self, data):
        self._rcvd_idx += 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            # Unlike PyTorch, the workers stop here: the exception's traceback keeps this iterator
            # (and so its processes) alive for as long as the caller holds on to it.
            self._shutdown_workers()
            data.reraise()
        return data

    # -- receiving --

    def _get_data(self):
        """(task id, batch) of the next result; raises on timeout or a dead worker."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        reader = self._result_queue._reader
        while True:
            wait_for = None if deadline is None else max(0.0, deadline - time.monotonic())
            sentinels = {w.sentinel: (i, w) for i, w in enumerate(self._workers)
                         if self._workers_status[i] or self._persistent_workers}
            ready = multiprocessing.connection.wait([reader, *sentinels], timeout=wait_for)
            if reader in ready:
                return self._receive()
            dead = [w for s, (i, w) in sentinels.items() if s in ready]
            if dead:
                self._fail(RuntimeError(
                    "DataLoader worker (pid(s) {}) exited unexpectedly (worker id(s) {}, exit code(s) {})".format(
                        ", ".join(str(w.pid) for w in dead),
                        ", ".join(str(self._workers.index(w)) for w in dead),
                        ", ".join(str(w.exitcode) for w in dead))))
            if deadline is not None and time.monotonic() >= deadline:
                self._fail(RuntimeError(f"DataLoader timed out after {self._timeout} seconds"))

    def _receive(self):
        idx, msg = self._result_queue.get()
        if isinstance(idx, ResumeIteration):
            return idx, None
        if msg[0] == "shm":
            _, wid, name, size, payload = msg
            return idx, _shared_memory.unpack(name, size, payload, self._freed[wid].append)
        return idx, msg[1]

    def _fail(self, exc: BaseException):
        self._shutdown_workers(join_timeout=0.2)  # a stuck worker will not finish: do not wait long
        raise exc

    # -- shutdown --

    def _shutdown_workers(self, join_timeout: float = _JOIN_TIMEOUT) -> None:
        """Idempotent: stop and join every worker, then unlink every block they created."""
        if self._shutdown:
            return
        self._shutdown = True
        _live_iterators.discard(self)
        try:
            self._done_event.set()
            for iq in self._index_queues:
                try:
                    iq.put(None)
                except Exception:
                    pass
            deadline = time.monotonic() + join_timeout
            for w in self._workers:
                # Drain while waiting: a worker blocked writing a result must be able to finish.
                while w.is_alive() and time.monotonic() < deadline:
                    self._drain(0.05)
                    w.join(0.0)
                if w.is_alive():
                    w.terminate()
                    w.join(1.0)
                if w.is_alive():
                    w.kill()
                    w.join()
            self._drain(0.0)
        finally:
            for iq in self._index_queues:
                iq.close()
            self._result_queue.close()
            _shared_memory.sweep(self._shm_prefix)

    def _drain(self, timeout: float) -> None:
        reader = self._result_queue._reader
        try:
            while reader.poll(timeout):
                timeout = 0.0
                _, msg = self._result_queue.get()
                if isinstance(msg, tuple) and msg and msg[0] == "shm":
                    _shared_memory.discard(msg[2])
        except (EOFError, OSError):
            pass

    def __del__(self):
        if not getattr(self, "_shutdown", True):
            self._shutdown_workers()
