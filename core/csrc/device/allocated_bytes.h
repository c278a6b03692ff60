// The count of bytes the CPU allocator has handed out and not had back (allocator.h's
// cpu_allocated_bytes), kept per thread: one global counter updated on every allocation and free was
// a cache line two threads fought over, and two scripted functions forked onto two threads ran slower
// together than one after the other.
#pragma once
#include <cstdint>

namespace ember::detail {

void count_allocated_bytes(int64_t delta);  // this thread's share changes by delta
int64_t total_allocated_bytes();            // every thread's share, and those of threads that ended

}  // namespace ember::detail
