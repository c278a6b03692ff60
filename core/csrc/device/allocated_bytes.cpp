// Per-thread allocated-byte counters (allocated_bytes.h). Each thread writes only its own counter, on a
// cache line of its own; a reader sums them under the registry's mutex. A block freed on another thread
// than the one that allocated it moves bytes between two counters; the sum stays exact.
#include "device/allocated_bytes.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace ember::detail {

namespace {

struct alignas(64) ThreadCounter {
  std::atomic<int64_t> bytes{0};  // written by its thread only (relaxed), read by total_allocated_bytes
};

struct Registry {
  std::mutex mu;
  std::vector<ThreadCounter*> live;
  std::atomic<int64_t> ended{0};  // the counts of threads that have ended, and frees made during thread exit
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: blocks may be freed during static destruction
  return *r;
}

thread_local ThreadCounter* t_counter = nullptr;  // trivially destructible: readable at any point of exit
thread_local bool t_ended = false;

// Registered on a thread's first count; its destructor folds the counter into `ended`.
struct CounterOwner {
  ~CounterOwner() {
    Registry& r = registry();
    std::lock_guard<std::mutex> g(r.mu);
    r.ended.fetch_add(t_counter->bytes.load(std::memory_order_relaxed), std::memory_order_relaxed);
    r.live.erase(std::find(r.live.begin(), r.live.end(), t_counter));
    delete t_counter;
    t_counter = nullptr;
    t_ended = true;
  }
};
thread_local CounterOwner t_owner;

ThreadCounter* register_thread() {
  static_cast<void>(&t_owner);  // constructs it, so its destructor runs at the thread's end
  auto* c = new ThreadCounter();
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  r.live.push_back(c);
  return c;
}

}  // namespace

void count_allocated_bytes(int64_t delta) {
  ThreadCounter* c = t_counter;
  if (__builtin_expect(c == nullptr, 0)) {
    if (t_ended) {
      registry().ended.fetch_add(delta, std::memory_order_relaxed);
      return;
    }
    c = t_counter = register_thread();
  }
  c->bytes.store(c->bytes.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
}

int64_t total_allocated_bytes() {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  int64_t total = r.ended.load(std::memory_order_relaxed);
  for (const ThreadCounter* c : r.live) total += c->bytes.load(std::memory_order_relaxed);
  return total;
}

}  // namespace ember::detail
