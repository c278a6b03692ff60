"""ember.futures (torch.futures): Future, a result that may arrive later, with then / add_done_callback
chaining, collect_all and wait_all; and the eager ember.fork / ember.wait, which, as PyTorch's outside
TorchScript, run the function at once and hand back a completed Future."""
from __future__ import annotations

import threading
import traceback

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """A value or an exception set once (set_result / set_exception), waited for with wait()."""

    def __init__(self, *, devices=None):
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._result = None
        self._error = None
        self._callbacks = []

    def done(self):
        return self._done.is_set()

    def wait(self):
        """Blocks until the future completes; returns its value or raises its exception."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._result

    def value(self):
        """The value of a completed future (raises its exception); the future must be done."""
        if not self.done():
            raise RuntimeError("Future.value() called before the Future completed: wait() for it or check done()")
        return self.wait()

    def set_result(self, result):
        self._complete(result, None)

    def set_exception(self, result):
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception expects an exception, got {type(result).__name__}")
        self._complete(None, result)

    def _complete(self, result, error):
        with self._lock:
            if self._done.is_set():
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can "
                                   "only be marked completed once.")
            self._result, self._error = result, error
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def add_done_callback(self, callback):
        """Calls callback(self) when the future completes (now, if it has)."""
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        """A new Future completed with callback(self) once this one completes; an exception the callback
        raises completes it with a RuntimeError naming that exception, as PyTorch's."""
        chained = Future()

        def run(fut):
            try:
                chained.set_result(callback(fut))
            except Exception as e:  # noqa: BLE001 (any error of the callback goes to the chained future)
                chained.set_exception(RuntimeError(
                    f"Got the following error when running the callback: {type(e).__name__}: {e}\n\n"
                    + "".join(traceback.format_tb(e.__traceback__))))
        self.add_done_callback(run)
        return chained


def collect_all(futures):
    """A Future completed with the list of futures once every one of them has completed."""
    futures = list(futures)
    together = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            together.set_result(futures)
    if not futures:
        together.set_result([])
    for f in futures:
        f.add_done_callback(one_done)
    return together


def wait_all(futures):
    """The values of all futures, waiting for each; raises the first exception met."""
    return [f.wait() for f in futures]


def fork(func, *args, **kwargs):
    """torch.fork outside TorchScript: calls func(*args, **kwargs) now and returns its completed Future
    (an exception func raises propagates from here, as PyTorch's)."""
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """torch.wait: the value of a Future from fork."""
    if not isinstance(future, Future):
        raise TypeError(f"wait(): incompatible function arguments: expected an ember.futures.Future, got "
                        f"{type(future).__name__}")
    return future.wait()
