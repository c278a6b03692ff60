"""ember.jit.fork / wait: fork runs func(*args) as a task on the inter-op thread pool (as many threads as
ember.get_num_interop_threads()) and returns an ember.futures.Future at once; wait returns its value.
A ScriptFunction or ScriptModule runs its graph without the GIL, so forked scripted calls run in parallel.

A task nobody has started yet is run by the thread that waits for it, so a task that forks and waits
(while every pool thread is busy the same way) cannot deadlock the pool."""
from __future__ import annotations

import queue
import threading

import ember
from ember.futures import Future


class _Task:
    __slots__ = ("fn", "args", "kwargs", "future", "claimed", "lock")

    def __init__(self, fn, args, kwargs):
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.future = Future()
        self.claimed = False
        self.lock = threading.Lock()

    def run(self) -> None:
        """Runs the task unless another thread has claimed it."""
        with self.lock:
            if self.claimed:
                return
            self.claimed = True
        try:
            result = self.fn(*self.args, **self.kwargs)
        except BaseException as e:  # noqa: BLE001 (the waiter re-raises it)
            self.future.set_exception(e)
        else:
            self.future.set_result(result)
        finally:
            self.fn = self.args = self.kwargs = None


class _InteropPool:
    def __init__(self):
        self.tasks: queue.SimpleQueue = queue.SimpleQueue()
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()

    def submit(self, task: _Task) -> None:
        with self.lock:
            if not self.threads:
                for k in range(max(1, ember.get_num_interop_threads())):
                    t = threading.Thread(target=self.work, name=f"ember-interop-{k}", daemon=True)
                    t.start()
                    self.threads.append(t)
        self.tasks.put(task)

    def work(self) -> None:
        while True:
            self.tasks.get().run()


_POOL = _InteropPool()


def fork(func, *args, **kwargs):
    """Starts func(*args, **kwargs) on the inter-op pool; returns the Future of its result."""
    if not callable(func):
        raise TypeError(f"ember.jit.fork: expected a callable, got {type(func).__name__}")
    task = _Task(func, args, kwargs)
    task.future._task = task
    _POOL.submit(task)
    return task.future


def wait(future):
    """The value of a Future from fork (an exception the task raised is raised here)."""
    if not isinstance(future, Future):
        raise TypeError(f"wait(): incompatible function arguments: expected an ember.futures.Future, got "
                        f"{type(future).__name__}")
    task = getattr(future, "_task", None)
    if task is not None:
        task.run()  # not started yet: run it here rather than wait for a pool thread
    return future.wait()
