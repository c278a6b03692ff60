// The CPU caching allocator: 64-byte aligned blocks, kept on free lists for reuse; big blocks are
// mmap'ed, asked to be backed by huge pages, and cached so fresh results do not page-fault.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ember {

struct Block {
  void* ptr = nullptr;
  size_t capacity = 0;  // what was really reserved; give it back to cpu_free
};

Block cpu_alloc(size_t nbytes);
void cpu_free(Block b);
void cpu_empty_cache();  // returns every cached block to the system
size_t cpu_cached_bytes();
// Bytes of the blocks handed out and not yet freed (by capacity), summed over per-thread counters
// (device/allocated_bytes.h). No high-water mark: it would need one counter every thread writes.
int64_t cpu_allocated_bytes();

}  // namespace ember
