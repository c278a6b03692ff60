// The inter-op pool: detached worker threads over one queue. The pool is never destroyed, so workers
// blocked on it at process exit wait on live objects.
#include "jit/fork.h"

#include <deque>
#include <thread>

#include "device/parallel.h"

namespace ember::jit {

void ForkTask::run() {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (claimed) return;
    claimed = true;
  }
  RValue r;
  std::exception_ptr e;
  try {
    r = work();
  } catch (...) {
    e = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(mu);
  result = std::move(r);
  error = e;
  work = nullptr;
  done = true;
  cv.notify_all();
}

RValue ForkTask::wait() {
  run();
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  if (error) std::rethrow_exception(error);
  return result;
}

namespace {

struct Pool {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::shared_ptr<ForkTask>> queue;
  bool started = false;

  void work() {
    for (;;) {
      std::shared_ptr<ForkTask> t;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return !queue.empty(); });
        t = std::move(queue.front());
        queue.pop_front();
      }
      t->run();
    }
  }
};

Pool& pool() {
  static Pool* p = new Pool();  // never destroyed (see above)
  return *p;
}

}  // namespace

void submit_fork(const std::shared_ptr<ForkTask>& t) {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  if (!p.started) {
    p.started = true;
    for (int k = 0; k < std::max(1, get_num_interop_threads()); k++) std::thread([&p] { p.work(); }).detach();
  }
  p.queue.push_back(t);
  p.cv.notify_one();
}

}  // namespace ember::jit
