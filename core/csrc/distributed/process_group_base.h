// What the process group backends (ProcessGroupGloo, ProcessGroupMPI) share: rank, size and timeout, the
// worker thread that runs collectives one at a time in call order, the bookkeeping of point-to-point
// transfers (a waiting thread each), the argument checks made in the caller's thread, and the wording of
// their failures, so both backends raise the same messages.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/buffer.h"
#include "distributed/store.h"
#include "distributed/work.h"

namespace ember::distributed {

class ProcessGroupBase {
 public:
  ProcessGroupBase(const ProcessGroupBase&) = delete;
  ProcessGroupBase& operator=(const ProcessGroupBase&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  Millis timeout() const { return timeout_; }

 protected:
  ProcessGroupBase(int rank, int size, Millis timeout) : rank_(rank), size_(size), timeout_(timeout) {}
  ~ProcessGroupBase() = default;  // the backend's destructor stops the worker (its jobs use the backend)

  // The worker thread; queue_job runs job on it after the jobs queued before (caller holds mutex_).
  void start_worker();
  void queue_job(std::function<void()> job);
  // DistBackendError "NAME: the process group was destroyed" once stop_worker began (caller holds mutex_).
  void throw_if_stopping(const std::string& name) const;
  // Runs what is queued and joins the worker; false when an earlier call already did.
  bool stop_worker();

  // A posted send/recv and the thread waiting for it (Handle: the backend's request).
  template <typename Handle>
  struct PendingTransfer {
    std::shared_ptr<Handle> handle;
    bool sending;
    std::shared_ptr<std::atomic<bool>> done;  // set by the waiter when it finished
    std::thread waiter;
  };
  // Adds a transfer to the list (caller holds mutex_), first joining the waiters that have finished.
  template <typename Handle>
  static void add_transfer(std::vector<PendingTransfer<Handle>>& transfers, PendingTransfer<Handle> transfer) {
    for (auto it = transfers.begin(); it != transfers.end();) {
      if (*it->done) {
        it->waiter.join();
        it = transfers.erase(it);
      } else {
        ++it;
      }
    }
    transfers.push_back(std::move(transfer));
  }

  // The checks of the collectives' buffers (std::invalid_argument, raised before anything is queued).
  void check_allgather(const Buffer& in, const Buffer& out) const;
  void check_gather(const Buffer& in, const Buffer& out, int root) const;
  void check_scatter(const Buffer& in, const Buffer& out, int root) const;
  void check_alltoallv(const std::vector<int64_t>& in_counts, const std::vector<int64_t>& out_counts) const;

  // "NAME (collective #SEQ of this group) failed on rank R of N"
  std::string collective_failure(const std::string& name, uint64_t seq) const;
  // "send to rank 2 failed on rank R of N", "recv from any rank failed ..." (peer < 0: any rank)
  std::string transfer_failure(const std::string& name, int peer, bool sending) const;
  // The error of a collective called after the group broke (broken_by: the failure that broke it).
  DistBackendError unusable(const std::string& name, const std::string& broken_by) const;
  // "WHAT; rank(s) ABSENT did not take part (...): CAUSE", for the ranks that never reached the collective.
  static std::string with_absent_ranks(const std::string& what, const std::string& absent, const std::string& cause);
  // "0, 3": the ranks r of the group for which absent(r) holds.
  std::string rank_list(const std::function<bool(int)>& absent) const;

  int rank_, size_;
  Millis timeout_;
  std::mutex mutex_;  // guards the queue, stopping_ and the backend's own shared state

 private:
  void worker_loop();
  std::condition_variable queued_;
  bool stopping_ = false;
  std::deque<std::function<void()>> queue_;
  std::thread worker_;
};

}  // namespace ember::distributed
