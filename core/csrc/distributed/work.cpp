// Work's completion handshake.
#include "distributed/work.h"

namespace ember::distributed {

void Work::wait(Millis timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout.count() < 0) {
    done_cv_.wait(lock, [&] { return done_; });
  } else if (!done_cv_.wait_for(lock, timeout, [&] { return done_; })) {
    throw DistBackendError("Work.wait(): the collective did not complete within " + std::to_string(timeout.count()) +
                           "ms");
  }
  if (error_) std::rethrow_exception(error_);
}

bool Work::is_completed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

bool Work::is_success() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_ && !error_;
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    error_ = error;
  }
  done_cv_.notify_all();
}

std::exception_ptr Work::error() {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

int Work::source() {
  std::lock_guard<std::mutex> lock(mutex_);
  return source_;
}

void Work::set_source(int rank) {
  std::lock_guard<std::mutex> lock(mutex_);
  source_ = rank;
}

}  // namespace ember::distributed
