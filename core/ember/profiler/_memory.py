"""profile_memory's records: one MemoryEvent per allocation or free of the CPU allocator while the
profile recorded, and the timeline of bytes in use built from them."""
from __future__ import annotations


class MemoryEvent:
    __slots__ = ("ts_us", "thread", "bytes", "total_allocated", "ptr")

    def __init__(self, ts_us, thread, nbytes, total_allocated, ptr):
        self.ts_us, self.thread, self.bytes = ts_us, thread, nbytes
        self.total_allocated, self.ptr = total_allocated, ptr

    def __repr__(self):
        return f"<MemoryEvent ts_us={self.ts_us:.3f} bytes={self.bytes} total_allocated={self.total_allocated}>"


def memory_timeline(events):
    """(times in us, bytes allocated after each event), in time order."""
    ordered = sorted(events, key=lambda m: m.ts_us)
    return [m.ts_us for m in ordered], [m.total_allocated for m in ordered]
