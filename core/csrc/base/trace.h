// The profiler's recorder: events (an op call, a record_function range, an autograd node) with their
// start/end time, thread, input shapes and the memory allocated inside them, and memory events.
// It sits in base so every layer can record (the allocator, the op table, the autograd engine, the
// bindings); ember.profiler (Python) starts and stops it and reads what it recorded.
// Off, it costs one relaxed atomic load per op: every entry point checks `on(kOps)` first.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ember::trace {

enum Flag : uint32_t { kOps = 1, kMemory = 2, kShapes = 4, kStack = 8 };
enum Kind : uint8_t { kOp = 0, kUserScope = 1, kAutograd = 2 };

extern std::atomic<uint32_t> g_flags;
inline bool on(uint32_t f) { return (g_flags.load(std::memory_order_relaxed) & f) != 0; }

struct Event {
  std::string name;
  Kind kind = kOp;
  uint64_t tid = 0;  // the OS thread id
  int64_t start_ns = 0, end_ns = -1;
  int64_t self_bytes = 0;  // allocated minus freed on this thread while it was the innermost open event
  std::vector<std::vector<int64_t>> shapes;  // per argument: [] for non-tensors (see dtypes)
  std::vector<std::string> dtypes;           // per argument: a dtype name, or "Scalar"/"int"/"" ...
  std::vector<std::string> concrete;         // per argument: the value of a number/int list, else ""
  std::vector<std::string> stack;            // innermost frame first: "file(line): function"
};

struct MemoryEvent {
  int64_t ts_ns;
  uint64_t tid;
  int64_t bytes;            // + allocated, - freed
  int64_t total_allocated;  // the allocator's bytes in use after this event
  uintptr_t ptr;
};

int64_t now_ns();

// Opens an event on this thread (nested in the open one); returns a handle for end(), or -1 when
// ops are not being recorded. `e` carries the name and kind, and the shapes/stack when recorded.
int64_t begin(Event e);
inline int64_t begin(std::string name, Kind kind) {
  Event e;
  e.name = std::move(name);
  e.kind = kind;
  return begin(std::move(e));
}
void end(int64_t handle);

// An allocation (+bytes) or free (-bytes) of `ptr`, with the allocator's total after it.
void memory(const void* ptr, int64_t bytes, int64_t total_allocated);

// Starts a recording (clearing what the last one left), with these flags.
void start(uint32_t flags);
// Stops it and hands over everything recorded, on every thread.
void stop(std::vector<Event>& events, std::vector<MemoryEvent>& memory_events);

// Ends the event of a handle from begin() (or nothing, for -1) when it goes out of scope:
//   trace::Scope s(trace::on(trace::kOps) ? trace::begin(name(), trace::kAutograd) : -1);
class Scope {
 public:
  explicit Scope(int64_t handle) : handle_(handle) {}
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  ~Scope() {
    if (handle_ >= 0) end(handle_);
  }
  int64_t handle() const { return handle_; }

 private:
  int64_t handle_;
};

}  // namespace ember::trace
