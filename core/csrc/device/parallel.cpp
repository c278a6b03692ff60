// The thread count for intra-op parallel loops, and the fork() rule: a child of a process whose
// OpenMP threads have started runs single-threaded (those threads cannot be restarted there).
#include "device/parallel.h"

#include <pthread.h>

#include <atomic>
#include <thread>

#include "base/error.h"

namespace ember {

namespace {
int g_threads = 0;
std::atomic<bool> g_team_started{false};  // an OpenMP team has run in this process
bool g_forked_after_team = false;         // this process is a fork() child of one that ran a team

// Constant-initialized (no static-init order issue): observers register from other files' initializers.
constexpr int kMaxObservers = 4;
void (*g_observers[kMaxObservers])(int) = {};
std::atomic<int> g_num_observers{0};

void child_after_fork() {
  if (!g_team_started.load(std::memory_order_relaxed)) return;
  g_forked_after_team = true;
  g_threads = 1;
}

[[maybe_unused]] const bool g_atfork_registered = [] { return pthread_atfork(nullptr, nullptr, &child_after_fork) == 0; }();
}  // namespace

void note_parallel_region() {
  if (!g_team_started.load(std::memory_order_relaxed)) g_team_started.store(true, std::memory_order_relaxed);
}

int get_num_threads() {
  if (g_threads == 0) {
    unsigned hc = std::thread::hardware_concurrency();
    g_threads = hc ? int(hc) : 1;
  }
  return g_threads;
}

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, Value, "set_num_threads expects a positive integer, got ", n);
  EMBER_CHECK(n == 1 || !g_forked_after_team, Runtime, "set_num_threads(", n, "): this process was forked after "
              "ember had started its worker threads, and OpenMP cannot start them again in a forked child; it "
              "runs single-threaded. Start worker processes with the 'spawn' or 'forkserver' method to use threads.");
  g_threads = n;
  for (int i = 0, k = g_num_observers.load(); i < k; i++) g_observers[i](n);
}

void add_num_threads_observer(void (*f)(int)) {
  const int i = g_num_observers.load();
  EMBER_CHECK(i < kMaxObservers, Runtime, "add_num_threads_observer: too many observers");
  g_observers[i] = f;
  g_num_observers.store(i + 1);
}

}  // namespace ember
