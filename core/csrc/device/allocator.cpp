// Caching allocator (see allocator.h). Small blocks: power-of-two classes. Large: 2 MiB multiples.
// A request the machine cannot hold raises OutOfMemory at once (the kernel's overcommit would
// otherwise hand out the mapping and kill the process when the pages are touched).
#include "device/allocator.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "base/oom_error.h"
#include "base/trace.h"
#include "device/allocated_bytes.h"

namespace ember {

namespace {

constexpr size_t kAlign = 64;
constexpr size_t kLargeFrom = size_t(1) << 20;  // 1 MiB and up are mmap'ed
constexpr size_t kHuge = size_t(2) << 20;       // huge page size
constexpr size_t kSmallCacheLimit = size_t(256) << 20;
constexpr size_t kLargeCacheLimit = size_t(4) << 30;

struct Cache {
  std::mutex mu;
  std::vector<void*> small[21];  // class k holds blocks of 64 << k bytes, up to 64 MiB (only < 1 MiB used)
  std::multimap<size_t, void*> large;
  size_t small_bytes = 0, large_bytes = 0;
};

Cache& cache() {
  static Cache* c = new Cache();  // never destroyed: tensors may outlive static destruction
  return *c;
}

int small_class(size_t n) {
  int k = 0;
  while ((kAlign << k) < n) k++;
  return k;
}

[[noreturn]] void out_of_memory(size_t nbytes, const char* why) {
  throw OutOfMemoryError(
      str_cat("DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes, " bytes", why));
}

// Requests from this size up are compared with the memory left before they are mapped; smaller
// ones are cheap to try and rarely decide anything.
constexpr size_t kCheckFrom = size_t(256) << 20;

// A number from a "Key:   123 kB" line of /proc/meminfo, in bytes (0 when absent).
uint64_t meminfo_bytes(const char* key) {
  FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  uint64_t v = 0;
  const size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
      v = std::strtoull(line + n + 1, nullptr, 10) * 1024;
      break;
    }
  }
  std::fclose(f);
  return v;
}

// Bytes a cgroup v2 limit still allows this process (UINT64_MAX when unlimited or unknown).
uint64_t cgroup_headroom() {
  auto read = [](const char* path, uint64_t& v) {
    FILE* f = std::fopen(path, "r");
    if (!f) return false;
    char buf[64] = {0};
    const bool ok = std::fgets(buf, sizeof buf, f) && buf[0] >= '0' && buf[0] <= '9';
    std::fclose(f);
    if (ok) v = std::strtoull(buf, nullptr, 10);
    return ok;
  };
  uint64_t max = 0, cur = 0;
  if (!read("/sys/fs/cgroup/memory.max", max) || !read("/sys/fs/cgroup/memory.current", cur)) return UINT64_MAX;
  return max > cur ? max - cur : 0;
}

// The memory a new mapping can really be backed by: what the kernel reports available (page cache
// it can drop included) plus swap, within the cgroup's limit. 0 means unknown (no check).
uint64_t memory_left() {
  const uint64_t avail = meminfo_bytes("MemAvailable");
  if (avail == 0) return 0;
  const uint64_t left = avail + meminfo_bytes("SwapFree");
  const uint64_t cg = cgroup_headroom();
  return left < cg ? left : cg;
}

void* map_large(size_t cap, size_t nbytes) {
  if (cap >= kCheckFrom) {
    const uint64_t left = memory_left();
    if (left && cap > left) {
      cpu_empty_cache();  // blocks we keep count as used; give them back and look again
      const uint64_t again = memory_left();
      if (again && cap > again) out_of_memory(nbytes, str_cat(" (", again, " bytes are available)").c_str());
    }
  }
  void* p = mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) out_of_memory(nbytes, "");
  madvise(p, cap, MADV_HUGEPAGE);
  return p;
}

// A per-thread front of the small classes up to 64 KiB: most blocks of a step are freed and asked for again on
// the same thread, and for one-element ops the global cache's mutex cost more than the rest of the allocation.
// cpu_empty_cache and cpu_cached_bytes see the calling thread's front, not other threads' (a few blocks each).
constexpr int kLocalClasses = 11;  // 64 B .. 64 KiB
constexpr int kLocalDepth = 8;
struct LocalCache {  // trivially destructible, so usable until the thread is gone whatever destructors ran
  void* blocks[kLocalClasses][kLocalDepth];
  int count[kLocalClasses];
  bool closed;  // the thread is ending: blocks go straight to the global cache
};
thread_local LocalCache t_local;

// The thread's blocks into the global cache (freed past its limit).
void flush_local() {
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  for (int k = 0; k < kLocalClasses; k++) {
    const size_t cap = kAlign << k;
    for (int i = 0; i < t_local.count[k]; i++) {
      if (c.small_bytes + cap <= kSmallCacheLimit) {
        c.small[k].push_back(t_local.blocks[k][i]);
        c.small_bytes += cap;
      } else {
        std::free(t_local.blocks[k][i]);
      }
    }
    t_local.count[k] = 0;
  }
}

struct LocalFlush {
  ~LocalFlush() {
    flush_local();
    t_local.closed = true;
  }
};
thread_local LocalFlush t_flush;  // constructed on a thread's first local free, so its end flushes

// Small blocks have capacities up to kLargeFrom itself (a request just under 1 MiB rounds up to it);
// large ones are multiples of 2 MiB. The two must never be confused: a small block cached as large
// would be unmapped with munmap, and the small class would reallocate (and page-fault) every time.
bool is_small(size_t capacity) { return capacity <= kLargeFrom; }

Block alloc_block(size_t nbytes) {
  if (nbytes == 0) return {};
  Cache& c = cache();
  if (nbytes < kLargeFrom) {
    int k = small_class(nbytes);
    size_t cap = kAlign << k;
    if (k < kLocalClasses && t_local.count[k] > 0) return {t_local.blocks[k][--t_local.count[k]], cap};
    {
      std::lock_guard<std::mutex> g(c.mu);
      auto& list = c.small[k];
      if (!list.empty()) {
        void* p = list.back();
        list.pop_back();
        c.small_bytes -= cap;
        return {p, cap};
      }
    }
    void* p = std::aligned_alloc(kAlign, cap);
    if (!p) out_of_memory(nbytes, "");
    return {p, cap};
  }
  if (nbytes > (size_t(1) << 62)) out_of_memory(nbytes, "");  // the rounding below would wrap
  size_t cap = (nbytes + kHuge - 1) / kHuge * kHuge;
  {
    std::lock_guard<std::mutex> g(c.mu);
    // The most recently freed block of this size (equal keys keep insertion order, a free inserts last):
    // it is the one still in the caches, where the first-inserted one would cycle through them all.
    auto it = c.large.upper_bound(cap);
    if (it != c.large.begin() && (--it)->first == cap) {
      void* p = it->second;
      c.large.erase(it);
      c.large_bytes -= cap;
      return {p, cap};
    }
  }
  void* p = map_large(cap, nbytes);
  // mmap returns page-aligned memory; to get huge pages, 2 MiB alignment is better but optional.
  return {p, cap};
}

void free_block(Block b) {
  Cache& c = cache();
  if (is_small(b.capacity)) {
    const int k = small_class(b.capacity);
    if (k < kLocalClasses && !t_local.closed && t_local.count[k] < kLocalDepth) {
      static_cast<void>(&t_flush);
      t_local.blocks[k][t_local.count[k]++] = b.ptr;
      return;
    }
    std::lock_guard<std::mutex> g(c.mu);
    if (c.small_bytes + b.capacity <= kSmallCacheLimit) {
      c.small[small_class(b.capacity)].push_back(b.ptr);
      c.small_bytes += b.capacity;
      return;
    }
  } else {
    std::lock_guard<std::mutex> g(c.mu);
    if (c.large_bytes + b.capacity <= kLargeCacheLimit) {
      c.large.emplace(b.capacity, b.ptr);
      c.large_bytes += b.capacity;
      return;
    }
  }
  if (is_small(b.capacity))
    std::free(b.ptr);
  else
    munmap(b.ptr, b.capacity);
}

}  // namespace

// Every block handed out is counted (by its capacity) for the statistics and, while the profiler
// records memory, reported to it with the total.
Block cpu_alloc(size_t nbytes) {
  Block b = alloc_block(nbytes);
  if (b.ptr) {
    detail::count_allocated_bytes(int64_t(b.capacity));
    if (trace::on(trace::kMemory)) trace::memory(b.ptr, int64_t(b.capacity), detail::total_allocated_bytes());
  }
  return b;
}

void cpu_free(Block b) {
  if (!b.ptr) return;
  detail::count_allocated_bytes(-int64_t(b.capacity));
  if (trace::on(trace::kMemory)) trace::memory(b.ptr, -int64_t(b.capacity), detail::total_allocated_bytes());
  free_block(b);
}

int64_t cpu_allocated_bytes() { return detail::total_allocated_bytes(); }

void cpu_empty_cache() {
  flush_local();  // this thread's blocks; other threads keep theirs (at most 8 per class up to 64 KiB each)
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  for (auto& list : c.small) {
    for (void* p : list) std::free(p);
    list.clear();
  }
  for (auto& kv : c.large) munmap(kv.second, kv.first);
  c.large.clear();
  c.small_bytes = c.large_bytes = 0;
}

size_t cpu_cached_bytes() {  // the global cache and this thread's blocks
  size_t local = 0;
  for (int k = 0; k < kLocalClasses; k++) local += size_t(t_local.count[k]) * (kAlign << k);
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  return c.small_bytes + c.large_bytes + local;
}

}  // namespace ember
