// Intra-op parallelism: one OpenMP team sized by ember.set_num_threads; small work runs inline.
#pragma once
#include <cstdint>

namespace ember {

int get_num_threads();
void set_num_threads(int n);
// Registers f to be called with the new count whenever set_num_threads runs, so a library with its
// own thread pool (OpenBLAS) follows ember's setting; device/ itself depends on no such library.
void add_num_threads_observer(void (*f)(int));
// Noted before every OpenMP team starts: a process forked after that runs single-threaded, since
// GNU OpenMP's threads do not survive fork() and the child's first parallel region would hang.
void note_parallel_region();

// Calls f(begin, end) over pieces of [0, n); runs inline when n < grain or one thread is set.
template <class F>
void parallel_for(int64_t n, int64_t grain, const F& f);

}  // namespace ember

#include <omp.h>

namespace ember {

template <class F>
void parallel_for(int64_t n, int64_t grain, const F& f) {
  int nt = get_num_threads();
  if (nt <= 1 || n < 2 * grain || omp_in_parallel()) {
    if (n > 0) f(int64_t(0), n);
    return;
  }
  int64_t pieces = n / grain < nt ? n / grain : nt;
  note_parallel_region();
#pragma omp parallel num_threads(int(pieces))
  {
    int64_t t = omp_get_thread_num(), p = omp_get_num_threads();
    int64_t chunk = (n + p - 1) / p;
    int64_t b = t * chunk, e = b + chunk < n ? b + chunk : n;
    if (b < e) f(b, e);
  }
}

}  // namespace ember
