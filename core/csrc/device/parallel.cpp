// The thread count for intra-op parallel loops: at start from MKL_NUM_THREADS, else OMP_NUM_THREADS,
// else one per core (PyTorch's rule); and the fork() rule: a child of a process whose worker
// threads have started runs single-threaded (fork() copies only the calling thread).
#include "device/parallel.h"

#include <pthread.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <thread>

#include "base/error.h"

namespace ember {

namespace {
constexpr int kMaxThreads = 65536;
std::atomic<int> g_threads{0};
std::atomic<int> g_interop_threads{0};  // 0: not set
bool g_forked_after_team = false;       // this process is a fork() child of one whose workers ran
std::string g_env_warning;

// Constant-initialized (no static-init order issue): observers register from other files' initializers.
constexpr int kMaxObservers = 4;
void (*g_observers[kMaxObservers])(int) = {};
std::atomic<int> g_num_observers{0};

void child_after_fork() {
  if (pool_workers_started() == 0) return;
  g_forked_after_team = true;
  g_threads.store(1);
}

[[maybe_unused]] const bool g_atfork_registered = [] {
  return pthread_atfork(nullptr, nullptr, &child_after_fork) == 0;
}();

int default_num_threads() {
  const unsigned hc = std::thread::hardware_concurrency();
  return hc ? int(hc) : 1;
}

// A thread count from the environment: a positive integer, blanks around it allowed; of an OpenMP
// list ("4,2": per nesting level) the first entry counts. 0 when unset, -1 when invalid.
int env_threads(const char* name) {
  const char* s = std::getenv(name);
  if (!s) return 0;
  const char* p = s;
  while (std::isspace(static_cast<unsigned char>(*p))) p++;
  long long v = 0;
  const char* digits = p;
  while (std::isdigit(static_cast<unsigned char>(*p)) && v <= kMaxThreads) v = v * 10 + (*p++ - '0');
  const bool any = p != digits;
  while (std::isspace(static_cast<unsigned char>(*p))) p++;
  if (!any || v < 1 || v > kMaxThreads || (*p != '\0' && *p != ',')) {
    g_env_warning += str_cat(g_env_warning.empty() ? "" : "; ", "ignoring ", name, "='", s,
                             "': expected a positive integer (at most ", kMaxThreads, ")");
    return -1;
  }
  return int(v);
}

int initial_num_threads() {
  const int omp = env_threads("OMP_NUM_THREADS"), mkl = env_threads("MKL_NUM_THREADS");
  return mkl > 0 ? mkl : omp > 0 ? omp : default_num_threads();
}
}  // namespace

int get_num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    static const int initial = initial_num_threads();  // once, thread-safe
    int expected = 0;
    g_threads.compare_exchange_strong(expected, initial);
    n = g_threads.load(std::memory_order_relaxed);
  }
  return n;
}

std::string num_threads_env_warning() {
  get_num_threads();
  return g_env_warning;
}

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, Value, "set_num_threads expects a positive integer, got ", n);
  EMBER_CHECK(n == 1 || !g_forked_after_team, Runtime, "set_num_threads(", n,
              "): this process was forked after "
              "ember had started its worker threads, and a forked child has none of them (fork() copies only "
              "the calling thread); it runs single-threaded. Start worker processes with the 'spawn' or "
              "'forkserver' method to use threads.");
  get_num_threads();  // the environment is read (and its warning kept) even when set first
  g_threads.store(n);
  for (int i = 0, k = g_num_observers.load(); i < k; i++) g_observers[i](n);
}

void add_num_threads_observer(void (*f)(int)) {
  const int i = g_num_observers.load();
  EMBER_CHECK(i < kMaxObservers, Runtime, "add_num_threads_observer: too many observers");
  g_observers[i] = f;
  g_num_observers.store(i + 1);
}

namespace detail {
std::atomic<int64_t> g_grain_cap{0};
}

int64_t set_parallel_grain_cap(int64_t cap) { return detail::g_grain_cap.exchange(cap < 0 ? 0 : cap); }

int get_num_interop_threads() {
  const int n = g_interop_threads.load();
  return n > 0 ? n : default_num_threads();
}

void set_num_interop_threads(int n) {
  EMBER_CHECK(n > 0, Runtime, "set_num_interop_threads expects a positive integer");
  int unset = 0;
  EMBER_CHECK(g_interop_threads.compare_exchange_strong(unset, n), Runtime,
              "Error: cannot set number of interop threads after parallel work has started or "
              "set_num_interop_threads called");
}

}  // namespace ember
