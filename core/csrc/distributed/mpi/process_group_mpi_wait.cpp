// ProcessGroupMPI's timeouts and failures. A started collective is polled with MPI_Test (which drives MPI's
// progress, as MPI_Wait would) until it completes, fails, outlives the group's timeout, or a peer's failure
// notice arrives. The first failure breaks the group: a notice carrying the collective's number goes to every
// peer, so those inside a collective (or entering their next one) fail at once instead of at their own
// timeout, and the notices that come back within a grace period say which ranks took part.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "distributed/mpi/mpi_types.h"
#include "distributed/mpi/process_group_mpi.h"

namespace ember::distributed {

namespace {

constexpr int kNoticeTag = 1;
using Clock = std::chrono::steady_clock;
// How long a collective may still be pending after mpiexec said a process died (a group of live ranks only
// completes well within it; one with the dead rank never does).
constexpr Millis kAfterDeathGrace{1000};

std::atomic<bool> job_lost_a_process{false};  // set by the SIGUSR1 handler (lock-free, so signal-safe)

extern "C" void on_job_failure(int) { job_lost_a_process = true; }

std::string error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS || length == 0) return "MPI error " + std::to_string(rc);
  return std::string(text, length);
}

}  // namespace

void ProcessGroupMPI::watch_job_failures() {
  struct sigaction action = {};
  action.sa_handler = on_job_failure;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &action, nullptr);
}

void ProcessGroupMPI::post_notice_recv() {
  mpi::check(MPI_Irecv(&notice_in_, 1, MPI_INT64_T, MPI_ANY_SOURCE, kNoticeTag, notices_, &notice_request_),
             "MPI_Irecv (failure notices)");
}

void ProcessGroupMPI::throw_if_broken(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!broken_by_.empty()) throw unusable(name, broken_by_);
}

void ProcessGroupMPI::wait_collective(const std::string& name, uint64_t seq, Started started) {
  const auto start = Clock::now();
  auto deadline = start + timeout_;
  bool death_seen = false;
  for (;;) {
    // A notice first: a peer that gave up has broken the group, even if this collective could still complete.
    int noticed = 0;
    MPI_Status status;
    if (notice_request_ != MPI_REQUEST_NULL && MPI_Test(&notice_request_, &noticed, &status) == MPI_SUCCESS &&
        noticed) {
      abandoned_.push_back(std::move(started));
      fail(name, seq,
           "rank " + std::to_string(status.MPI_SOURCE) + " reported that collective #" + std::to_string(notice_in_) +
               " failed on it",
           status.MPI_SOURCE);
    }
    int done = 0;
    int rc = MPI_Test(&started.request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      abandoned_.push_back(std::move(started));
      fail(name, seq, "MPI reported: " + error_text(rc), -1);
    }
    if (done) return;
    auto now = Clock::now();
    if (!death_seen && job_lost_a_process) {
      death_seen = true;
      deadline = std::min(deadline, now + kAfterDeathGrace);
    }
    if (now >= deadline) {
      abandoned_.push_back(std::move(started));
      fail(name, seq,
           death_seen ? "mpiexec reported that a process of the job died (SIGUSR1)"
                      : "it did not complete within the group's timeout of " + std::to_string(timeout_.count()) + "ms",
           -1);
    }
    // Spin (yielding) as MPI_Wait does; a collective pending for over a second is waiting on a peer, so it
    // stops taking a whole core.
    if (now - start > std::chrono::seconds(1))
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    else
      std::this_thread::yield();
  }
}

void ProcessGroupMPI::fail(const std::string& name, uint64_t seq, const std::string& cause, int reporter) {
  std::string what = collective_failure(name, seq);
  any_broken = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!broken_by_.empty()) throw DistBackendError(what + ": " + cause);
    broken_by_ = what;
  }
  // Tell every peer (a dead one's send fails or never completes: neither matters).
  auto number = std::make_shared<int64_t>(static_cast<int64_t>(seq));
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    Started notice{MPI_REQUEST_NULL, number};
    if (MPI_Isend(number.get(), 1, MPI_INT64_T, peer, kNoticeTag, notices_, &notice.request) == MPI_SUCCESS)
      abandoned_.push_back(std::move(notice));
  }
  // The ranks inside this collective send their notice as soon as ours (or another's) reaches them; those
  // without one after a grace period never reached it. A second is plenty, and a restart is not held up.
  std::vector<bool> took_part(size_, false);
  took_part[rank_] = true;
  if (reporter >= 0 && notice_in_ == static_cast<int64_t>(seq)) took_part[reporter] = true;
  const auto grace_end = Clock::now() + std::min(timeout_, Millis(1000));
  auto missing = [&] { return rank_list([&](int r) { return !took_part[r]; }); };
  while (!missing().empty() && Clock::now() < grace_end) {
    if (notice_request_ == MPI_REQUEST_NULL &&
        MPI_Irecv(&notice_in_, 1, MPI_INT64_T, MPI_ANY_SOURCE, kNoticeTag, notices_, &notice_request_) != MPI_SUCCESS)
      break;
    int noticed = 0;
    MPI_Status status;
    if (MPI_Test(&notice_request_, &noticed, &status) != MPI_SUCCESS) break;
    if (noticed && notice_in_ == static_cast<int64_t>(seq))
      took_part[status.MPI_SOURCE] = true;
    else if (!noticed)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::string absent = missing();
  if (absent.empty()) throw DistBackendError(what + (reporter >= 0 ? ": " : " on every rank: ") + cause);
  throw DistBackendError(with_absent_ranks(what, absent, cause));
}

}  // namespace ember::distributed
