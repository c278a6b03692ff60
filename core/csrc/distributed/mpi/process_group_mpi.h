// ProcessGroupMPI: collectives over an MPI library (built against the MPI standard ABI), with rank and world
// size from MPI itself (the job is started by mpiexec). As PyTorch's, one worker thread runs the collectives
// in call order, so async_op=True returns at once; sends and receives are posted in the caller's thread
// (MPI_THREAD_MULTIPLE) and a thread per transfer waits for it. MPI has no timeouts: when a rank dies,
// mpiexec aborts the whole job, which is what ends the survivors.
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/buffer.h"
#include "distributed/work.h"

namespace ember::distributed {

class ProcessGroupMPI {
 public:
  // Initializes MPI on first use (MPI_THREAD_MULTIPLE) and wraps a duplicate of MPI_COMM_WORLD.
  static std::shared_ptr<ProcessGroupMPI> world();
  // A group of the given world ranks (in that order). Every world rank calls it, in the same order (it is
  // collective over the world); non-members get null.
  static std::shared_ptr<ProcessGroupMPI> subgroup(const std::vector<int>& world_ranks);
  // Shuts down every live group's threads and finalizes MPI (at interpreter exit); MPI cannot start again.
  static void finalize();
  static bool finalized();

  explicit ProcessGroupMPI(MPI_Comm comm);  // takes ownership of comm
  ~ProcessGroupMPI();
  ProcessGroupMPI(const ProcessGroupMPI&) = delete;
  ProcessGroupMPI& operator=(const ProcessGroupMPI&) = delete;
  // Runs the queued collectives, cancels pending receives, joins the threads, frees the communicator.
  void shutdown();

  std::shared_ptr<Work> allreduce(Buffer buf, ReduceOp op);
  std::shared_ptr<Work> broadcast(Buffer buf, int root);
  std::shared_ptr<Work> reduce(Buffer buf, ReduceOp op, int root);
  std::shared_ptr<Work> allgather(Buffer in, Buffer out);  // out holds size * in.count elements
  std::shared_ptr<Work> barrier();
  // Data movement in bytes: gather's out (size * in.count) and scatter's in (size * out.count) are read on root.
  std::shared_ptr<Work> gather(Buffer in, Buffer out, int root);
  std::shared_ptr<Work> scatter(Buffer in, Buffer out, int root);
  std::shared_ptr<Work> alltoallv(void* in, std::vector<int64_t> in_counts, void* out, std::vector<int64_t> out_counts);
  // Point to point in bytes, matched by (peer, tag); recv from src < 0 takes the first sender (Work::source()).
  std::shared_ptr<Work> send(Buffer buf, int dst, uint32_t tag);
  std::shared_ptr<Work> recv(Buffer buf, int src, uint32_t tag);

  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  std::shared_ptr<Work> enqueue(std::string name, std::function<void(MPI_Comm)> run);
  void worker_loop();
  std::shared_ptr<Work> post_p2p(std::string where, MPI_Request request, bool sending);
  void check_root(int root, const char* name) const;

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::mutex mutex_;
  std::condition_variable queued_;
  bool stopping_ = false;
  std::deque<std::function<void()>> queue_;
  std::thread worker_;
  struct PendingTransfer {
    std::shared_ptr<MPI_Request> request;
    bool sending;
    std::shared_ptr<std::atomic<bool>> done;
    std::thread waiter;
  };
  std::vector<PendingTransfer> transfers_;  // under mutex_; finished ones are joined at the next post
};

}  // namespace ember::distributed
