// ember.jit.fork in scripted code: a task (a prim::fork node's body run on its own frame) queued on the
// inter-op thread pool (get_num_interop_threads() threads, started on first use), and the future
// prim::wait reads. A task no pool thread has started is run by the thread that waits for it, so tasks
// that fork and wait cannot deadlock the pool.
#pragma once
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>

#include "jit/value.h"

namespace ember::jit {

struct ForkTask {
  std::function<RValue()> work;
  std::mutex mu;
  std::condition_variable cv;
  bool claimed = false, done = false;
  RValue result;
  std::exception_ptr error;

  void run();     // runs the work unless another thread has claimed it
  RValue wait();  // the result (runs the work here if unclaimed); rethrows the work's exception
};

// Queues t on the inter-op pool.
void submit_fork(const std::shared_ptr<ForkTask>& t);

}  // namespace ember::jit
