"""What the rest of ember needs from the profiler, without importing it: whether a profile is
recording (a plain attribute, so an unprofiled DataLoader or optimizer step pays one attribute read)
and a range to record around a step."""
from ember import _C


class _State:
    recording = False


state = _State()


class Range:
    """A named range on this thread's timeline while the profiler records (as record_function)."""

    __slots__ = ("name", "handle")

    def __init__(self, name):
        self.name = name
        self.handle = -1

    def __enter__(self):
        self.handle = _C._record_function_enter(self.name)
        return self

    def __exit__(self, *exc):
        _C._record_function_exit(self.handle)
        self.handle = -1
        return False
