"""The Future of a collective (Work.get_future): completed by the first wait (or done() once the backend
has finished), and chained with then() the same way, so no thread waits on the backend's behalf."""
from __future__ import annotations

import threading
import traceback

from ember.futures import Future


class DrivenFuture(Future):
    """A Future that completes by running drive(self) (which sets its result or exception) on first use."""

    def __init__(self, drive, ready=None):
        super().__init__()
        self._drive = drive
        self._ready = ready
        self._drive_lock = threading.Lock()

    def _run(self):
        with self._drive_lock:
            drive, self._drive = self._drive, None
        if drive is None:
            return
        try:
            drive(self)
        except Exception as e:  # noqa: BLE001 (the collective's error becomes the future's)
            if not super().done():
                self.set_exception(e)

    def wait(self):
        self._run()
        return super().wait()

    def done(self):
        if self._drive is not None and self._ready is not None and self._ready():
            self._run()
        return super().done()

    def then(self, callback):
        parent = self

        def drive(child):
            try:
                parent.wait()
            except Exception:  # noqa: BLE001 (the callback sees the error through parent.value())
                pass
            try:
                child.set_result(callback(parent))
            except Exception as e:  # noqa: BLE001
                child.set_exception(RuntimeError(
                    f"Got the following error when running the callback: {type(e).__name__}: {e}\n\n"
                    + "".join(traceback.format_tb(e.__traceback__))))
        return DrivenFuture(drive, ready=parent.done)


def work_future(work, result) -> Future:
    """The Future of Work `work`, whose value is `result` (the collective's output tensors)."""
    def drive(fut):
        work.wait()
        fut.set_result(result)
    return DrivenFuture(drive, ready=work.is_completed)
