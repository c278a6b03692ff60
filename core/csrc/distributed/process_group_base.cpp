// ProcessGroupBase: the worker thread's loop and the checks and messages both backends share.
#include "distributed/process_group_base.h"

#include <stdexcept>

namespace ember::distributed {

void ProcessGroupBase::start_worker() {
  worker_ = std::thread([this] { worker_loop(); });
}

void ProcessGroupBase::worker_loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and every queued collective has run
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

void ProcessGroupBase::queue_job(std::function<void()> job) {
  queue_.push_back(std::move(job));
  queued_.notify_one();
}

void ProcessGroupBase::throw_if_stopping(const std::string& name) const {
  if (stopping_) throw DistBackendError(name + ": the process group was destroyed");
}

bool ProcessGroupBase::stop_worker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && !worker_.joinable()) return false;
    stopping_ = true;
  }
  queued_.notify_all();
  if (worker_.joinable()) worker_.join();
  return true;
}

void ProcessGroupBase::check_allgather(const Buffer& in, const Buffer& out) const {
  if (out.type != in.type || out.count != in.count * static_cast<size_t>(size_))
    throw std::invalid_argument("all_gather: the output must hold world_size * input elements of the input's type");
}

void ProcessGroupBase::check_gather(const Buffer& in, const Buffer& out, int root) const {
  if (rank_ == root && out.count != in.count * static_cast<size_t>(size_))
    throw std::invalid_argument("gather: the output must hold world_size * input bytes");
}

void ProcessGroupBase::check_scatter(const Buffer& in, const Buffer& out, int root) const {
  if (rank_ == root && in.count != out.count * static_cast<size_t>(size_))
    throw std::invalid_argument("scatter: the input must hold world_size * output bytes");
}

void ProcessGroupBase::check_alltoallv(const std::vector<int64_t>& in_counts,
                                       const std::vector<int64_t>& out_counts) const {
  if (in_counts.size() != static_cast<size_t>(size_) || out_counts.size() != static_cast<size_t>(size_))
    throw std::invalid_argument("all_to_all: one split size per rank is needed");
}

std::string ProcessGroupBase::collective_failure(const std::string& name, uint64_t seq) const {
  return name + " (collective #" + std::to_string(seq) + " of this group) failed on rank " + std::to_string(rank_) +
         " of " + std::to_string(size_);
}

std::string ProcessGroupBase::transfer_failure(const std::string& name, int peer, bool sending) const {
  return name + (sending ? " to " : " from ") + (peer < 0 ? "any rank" : "rank " + std::to_string(peer)) +
         " failed on rank " + std::to_string(rank_) + " of " + std::to_string(size_);
}

DistBackendError ProcessGroupBase::unusable(const std::string& name, const std::string& broken_by) const {
  return DistBackendError(name + " on rank " + std::to_string(rank_) + " of " + std::to_string(size_) +
                          ": the process group is unusable after an earlier failure: " + broken_by);
}

std::string ProcessGroupBase::with_absent_ranks(const std::string& what, const std::string& absent,
                                                const std::string& cause) {
  return what + "; rank(s) " + absent + " did not take part (dead, hung, or never called it): " + cause;
}

std::string ProcessGroupBase::rank_list(const std::function<bool(int)>& absent) const {
  std::string ranks;
  for (int r = 0; r < size_; ++r)
    if (absent(r)) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  return ranks;
}

}  // namespace ember::distributed
