// The recorder behind base/trace.h: one buffer per thread (its own lock, uncontended except while
// stop() collects), registered globally so stop() finds every thread's events. A generation number
// makes handles and open events of an earlier recording harmless after a restart.
#include "base/trace.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <utility>

namespace ember::trace {

std::atomic<uint32_t> g_flags{0};

namespace {

struct ThreadBuffer {
  std::mutex mu;
  uint64_t tid = 0;
  uint64_t generation = 0;
  std::vector<Event> events;
  std::vector<int64_t> open;  // indices into events, innermost last
  std::vector<MemoryEvent> memory;
};

struct Registry {
  std::mutex mu;
  uint64_t generation = 1;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: threads may record during exit
  return *r;
}

std::atomic<uint64_t> g_generation{1};

// This thread's buffer, reset when it still holds an earlier recording.
ThreadBuffer& local() {
  thread_local std::shared_ptr<ThreadBuffer> buf;
  if (!buf) {
    buf = std::make_shared<ThreadBuffer>();
    buf->tid = uint64_t(syscall(SYS_gettid));
    Registry& r = registry();
    std::lock_guard<std::mutex> g(r.mu);
    buf->generation = r.generation;
    r.buffers.push_back(buf);
  }
  uint64_t gen = g_generation.load(std::memory_order_acquire);
  if (buf->generation != gen) {
    std::lock_guard<std::mutex> g(buf->mu);
    buf->events.clear();
    buf->open.clear();
    buf->memory.clear();
    buf->generation = gen;
  }
  return *buf;
}

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A handle is the recording's generation (high 31 bits) and the event's index in its thread's buffer,
// so a scope left open across a stop/start cannot close an event of the next recording.
int64_t begin(Event e) {
  if (!on(kOps)) return -1;
  ThreadBuffer& b = local();
  std::lock_guard<std::mutex> g(b.mu);
  e.tid = b.tid;
  e.start_ns = now_ns();
  b.events.push_back(std::move(e));
  int64_t idx = int64_t(b.events.size()) - 1;
  b.open.push_back(idx);
  return int64_t((b.generation & 0x7fffffff) << 32) | idx;
}

void end(int64_t handle) {
  if (handle < 0) return;
  int64_t t = now_ns();
  ThreadBuffer& b = local();
  std::lock_guard<std::mutex> g(b.mu);
  if (uint64_t(handle >> 32) != (b.generation & 0x7fffffff)) return;  // an earlier recording's
  handle &= 0xffffffff;
  if (handle >= int64_t(b.events.size())) return;  // collected by stop() while open
  b.events[size_t(handle)].end_ns = t;
  // Usually the innermost; a range closed out of order (a record_function exited late) is removed
  // wherever it is.
  for (size_t i = b.open.size(); i-- > 0;) {
    if (b.open[i] == handle) {
      b.open.erase(b.open.begin() + std::ptrdiff_t(i));
      break;
    }
  }
}

void memory(const void* ptr, int64_t bytes, int64_t total_allocated) {
  if (!on(kMemory)) return;
  ThreadBuffer& b = local();
  std::lock_guard<std::mutex> g(b.mu);
  b.memory.push_back({now_ns(), b.tid, bytes, total_allocated, reinterpret_cast<uintptr_t>(ptr)});
  if (!b.open.empty()) b.events[size_t(b.open.back())].self_bytes += bytes;
}

void start(uint32_t flags) {
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> g(r.mu);
    r.generation = g_generation.fetch_add(1) + 1;
  }
  g_flags.store(flags, std::memory_order_release);
}

void stop(std::vector<Event>& events, std::vector<MemoryEvent>& memory_events) {
  g_flags.store(0, std::memory_order_release);
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  uint64_t gen = g_generation.load();
  for (auto& b : r.buffers) {
    std::lock_guard<std::mutex> bg(b->mu);
    if (b->generation != gen) continue;  // the thread recorded nothing this time
    int64_t t = now_ns();
    for (Event& e : b->events) {
      if (e.end_ns < 0) e.end_ns = t;  // still open when the recording stopped
      events.push_back(std::move(e));
    }
    for (MemoryEvent& m : b->memory) memory_events.push_back(m);
    b->events.clear();
    b->open.clear();
    b->memory.clear();
  }
  // Buffers of threads that have exited (only the registry holds them) are dropped once collected.
  r.buffers.erase(std::remove_if(r.buffers.begin(), r.buffers.end(),
                                 [](const std::shared_ptr<ThreadBuffer>& b) { return b.use_count() == 1; }),
                  r.buffers.end());
  // Handles still held by open scopes now point past the (empty) buffers, and end() ignores them.
}

}  // namespace ember::trace
