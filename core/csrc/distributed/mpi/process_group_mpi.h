// ProcessGroupMPI: collectives over an MPI library (built against the MPI standard ABI), with rank and world
// size from MPI itself (the job is started by mpiexec). As PyTorch's, one worker thread runs the collectives
// in call order, so async_op=True returns at once; sends and receives are posted in the caller's thread
// (MPI_THREAD_MULTIPLE) and a thread per transfer waits for it. MPI itself has no timeouts (PyTorch's
// ProcessGroupMPI waits forever in a blocking call), so collectives run as MPI's nonblocking ones, polled
// against the group's timeout: a collective a peer never joins (dead, hung) fails with DistBackendError
// naming it, this rank and the ranks that did not take part, and breaks the group, which tells the others
// (a failure notice on a communicator of its own) so they fail at once too, as Gloo's groups do.
#pragma once

#include <mpi.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distributed/process_group_base.h"

namespace ember::distributed {

class ProcessGroupMPI : public ProcessGroupBase {
 public:
  // Initializes MPI on first use (MPI_THREAD_MULTIPLE) and wraps a duplicate of MPI_COMM_WORLD.
  static std::shared_ptr<ProcessGroupMPI> world(Millis timeout);
  // A group of the given world ranks (in that order). Every world rank calls it, in the same order (it is
  // collective over the world); non-members get null.
  static std::shared_ptr<ProcessGroupMPI> subgroup(const std::vector<int>& world_ranks, Millis timeout);
  // Shuts down every live group's threads and finalizes MPI (at interpreter exit); MPI cannot start again.
  static void finalize();
  static bool finalized();
  // Set once any group broke: MPI_Finalize (which waits for its peers) is then skipped at exit.
  static std::atomic<bool> any_broken;
  // mpiexec (Hydra) run with -disable-auto-cleanup tells the survivors of a process that died with SIGUSR1:
  // this handler takes it as "a process of the job died", and the collectives still pending a moment later
  // fail at once instead of at the timeout.
  static void watch_job_failures();

  ProcessGroupMPI(MPI_Comm comm, Millis timeout);  // takes ownership of comm
  ~ProcessGroupMPI();
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

 private:
  // A started nonblocking collective, and what MPI may still read or write until it completes (kept for ever
  // when it never does: MPI cannot cancel a collective).
  struct Started {
    MPI_Request request;
    std::shared_ptr<void> keep_alive;
  };
  std::shared_ptr<Work> enqueue(std::string name, std::function<Started(MPI_Comm)> start);
  // Polls a started collective until it completes; raises DistBackendError (and breaks the group) when it
  // fails, outlives the timeout, or a peer reports a failure.
  void wait_collective(const std::string& name, uint64_t seq, Started started);
  [[noreturn]] void fail(const std::string& name, uint64_t seq, const std::string& cause, int reporter);
  void post_notice_recv();
  void throw_if_broken(const std::string& name);
  std::shared_ptr<Work> post_p2p(std::string where, MPI_Request request, bool sending);
  void check_root(int root, const char* name) const;

  MPI_Comm comm_;
  MPI_Comm notices_ = MPI_COMM_NULL;  // a duplicate of comm_ for failure notices only
  uint64_t next_seq_ = 0;             // collectives started (the worker's only): the same count on every rank
  int64_t notice_in_ = -1;            // the failed collective's number a peer's notice carries
  MPI_Request notice_request_ = MPI_REQUEST_NULL;
  std::string broken_by_;           // the failure that broke the group (worker thread, read under mutex_)
  std::vector<Started> abandoned_;  // collectives that never completed, and the notices sent
  std::vector<PendingTransfer<MPI_Request>> transfers_;  // under mutex_; finished ones are joined at the next post
};

}  // namespace ember::distributed
