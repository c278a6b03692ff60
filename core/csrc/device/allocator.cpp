// Caching allocator (see allocator.h). Small blocks: power-of-two classes. Large: 2 MiB multiples.
#include "device/allocator.h"

#include <sys/mman.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <vector>

namespace ember {

namespace {

constexpr size_t kAlign = 64;
constexpr size_t kLargeFrom = size_t(1) << 20;      // 1 MiB and up are mmap'ed
constexpr size_t kHuge = size_t(2) << 20;           // huge page size
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

void* map_large(size_t cap) {
  void* p = mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  madvise(p, cap, MADV_HUGEPAGE);
  return p;
}

// Small blocks have capacities up to kLargeFrom itself (a request just under 1 MiB rounds up to it);
// large ones are multiples of 2 MiB. The two must never be confused: a small block cached as large
// would be unmapped with munmap, and the small class would reallocate (and page-fault) every time.
bool is_small(size_t capacity) { return capacity <= kLargeFrom; }

}  // namespace

Block cpu_alloc(size_t nbytes) {
  if (nbytes == 0) return {};
  Cache& c = cache();
  if (nbytes < kLargeFrom) {
    int k = small_class(nbytes);
    size_t cap = kAlign << k;
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
    if (!p) throw std::bad_alloc();
    return {p, cap};
  }
  size_t cap = (nbytes + kHuge - 1) / kHuge * kHuge;
  {
    std::lock_guard<std::mutex> g(c.mu);
    auto it = c.large.find(cap);
    if (it != c.large.end()) {
      void* p = it->second;
      c.large.erase(it);
      c.large_bytes -= cap;
      return {p, cap};
    }
  }
  void* p = map_large(cap);
  // mmap returns page-aligned memory; to get huge pages, 2 MiB alignment is better but optional.
  return {p, cap};
}

void cpu_free(Block b) {
  if (!b.ptr) return;
  Cache& c = cache();
  if (is_small(b.capacity)) {
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
  if (is_small(b.capacity)) std::free(b.ptr);
  else munmap(b.ptr, b.capacity);
}

void cpu_empty_cache() {
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

size_t cpu_cached_bytes() {
  Cache& c = cache();
  std::lock_guard<std::mutex> g(c.mu);
  return c.small_bytes + c.large_bytes;
}

}  // namespace ember
