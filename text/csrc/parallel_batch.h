// Runs fn(i) for i in [0, n) on up to num_threads threads (the caller's among them), handing out items
// one at a time so uneven lengths balance; the first exception thrown is rethrown in the caller.
#pragma once
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace embertext {

template <class Fn>
void parallel_batch(size_t n, int num_threads, Fn fn) {
  size_t workers = std::min<size_t>(std::max(num_threads, 1), n);
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(n);
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < workers; ++t) threads.emplace_back(run);
  run();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace embertext
