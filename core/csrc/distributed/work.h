// Work: the handle of one collective (async_op=True returns it): completion, its error, and a wait that
// gives up after a timeout. The process group's worker thread completes it.
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>

#include "distributed/store.h"

namespace ember::distributed {

struct DistBackendError : DistError {
  using DistError::DistError;
};

class Work {
 public:
  // Blocks until done; rethrows the collective's error; DistBackendError after timeout (<0: none).
  void wait(Millis timeout);
  bool is_completed();
  bool is_success();  // completed without error
  void finish(std::exception_ptr error);
  std::exception_ptr error();  // null while running or after success
  int source();                // a receive's sender (-1 before completion, or for other work)
  void set_source(int rank);

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::exception_ptr error_;
  int source_ = -1;
};

}  // namespace ember::distributed
