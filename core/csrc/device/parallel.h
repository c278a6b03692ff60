// Intra-op parallelism: ember's own worker pool (device/thread_pool.h) sized by
// ember.set_num_threads, or at start by MKL_NUM_THREADS / OMP_NUM_THREADS as in PyTorch; small
// work runs inline.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "device/thread_pool.h"

namespace ember {

int get_num_threads();
void set_num_threads(int n);
// Registers f to be called with the new count whenever set_num_threads runs, so a library with its
// own thread pool (OpenBLAS) follows ember's setting; device/ itself depends on no such library.
void add_num_threads_observer(void (*f)(int));
// Why MKL_NUM_THREADS or OMP_NUM_THREADS was ignored at start (an invalid value), or "".
std::string num_threads_env_warning();

// The inter-op count PyTorch's API carries: ember runs each op on the calling thread (no inter-op
// pool), so it is only recorded; settable once, as in PyTorch.
int get_num_interop_threads();
void set_num_interop_threads(int n);

// For tests: when > 0, parallel_for's grain is at most this, so that small inputs split over every
// thread as large ones do (tests/opdb/test_thread_count.py). Returns the previous cap.
int64_t set_parallel_grain_cap(int64_t cap);
namespace detail {
extern std::atomic<int64_t> g_grain_cap;
}

// Calls f(begin, end) over pieces of [0, n); runs inline when n < 2 * grain, one thread is set,
// or inside another parallel loop.
template <class F>
void parallel_for(int64_t n, int64_t grain, const F& f);

}  // namespace ember

namespace ember {

template <class F>
void parallel_for(int64_t n, int64_t grain, const F& f) {
  const int nt = get_num_threads();
  const int64_t cap = detail::g_grain_cap.load(std::memory_order_relaxed);
  if (cap > 0 && grain > cap) grain = cap;
  if (nt <= 1 || n < 2 * grain || in_parallel_region()) {
    if (n > 0) f(int64_t(0), n);
    return;
  }
  const int64_t pieces = n / grain < nt ? n / grain : nt;
  struct Job {
    const F& f;
    int64_t n, chunk;
  } job{f, n, (n + pieces - 1) / pieces};
  run_on_team(
      int(pieces),
      [](void* p, int t) {
        const Job& j = *static_cast<const Job*>(p);
        const int64_t b = t * j.chunk, e = b + j.chunk < j.n ? b + j.chunk : j.n;
        if (b < e) j.f(b, e);
      },
      &job);
}

}  // namespace ember
