// ducc0's threads for ember's FFTs: a ducc0 thread_pool whose parallel_for runs on ember's worker
// pool, so a transform splits over the same threads as every other op (no second pool of workers
// competing for the cores), sized by ember.set_num_threads. Header
// only: each ducc0 build (fft_ducc_impl.h, one per ISA and precision) derives from its own ducc0.
#pragma once
#include <functional>

#include "device/parallel.h"
#include "ducc0/infra/threading.h"

namespace ember::fft {

namespace {

class OmpPool final : public DUCC0_NAMESPACE::detail_threading::thread_pool {
 public:
  size_t nthreads() const override { return size_t(get_num_threads()) - 1; }  // helpers beside the caller
  size_t adjust_nthreads(size_t n) const override {
    const size_t most = size_t(get_num_threads());
    return n == 0 || n > most ? most : n;
  }
  void submit(std::function<void()> work) override { work(); }  // parallel_for below never submits
  void parallel_for(size_t n, std::function<void(size_t)> work) override {
    // run_on_team runs each share once, inline when nested or n is 1; a thread the OS runs late
    // (a busy machine) leaves its share to the others instead of holding the transform up.
    run_on_team(int(n), [](void* w, int i) { (*static_cast<std::function<void(size_t)>*>(w))(size_t(i)); }, &work);
  }
};

OmpPool& omp_pool() {
  static OmpPool pool;
  return pool;
}

}  // namespace

}  // namespace ember::fft
