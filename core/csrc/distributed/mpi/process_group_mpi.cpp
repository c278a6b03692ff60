// ProcessGroupMPI: MPI's set-up and tear-down, the worker thread, and the collectives mapped onto MPI's
// nonblocking large-count (I..._c) calls, so buffers past 2^31 elements need no chunking and every collective
// can be given up after the timeout (process_group_mpi_wait.cpp).
#include "distributed/mpi/process_group_mpi.h"

#include <signal.h>

#include <chrono>

#include "distributed/mpi/mpi_types.h"

namespace ember::distributed {

namespace {

using mpi::check;

std::mutex registry_mutex;
std::vector<std::weak_ptr<ProcessGroupMPI>> live_groups;  // what finalize() shuts down
bool mpi_finalized = false;

void ensure_initialized() {
  if (mpi_finalized) throw DistBackendError("ProcessGroupMPI: MPI was finalized, it cannot be initialized again");
  int initialized = 0;
  check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized) return;
  struct sigaction before;
  bool usr1_unhandled = sigaction(SIGUSR1, nullptr, &before) == 0 && before.sa_handler == SIG_DFL;
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  if (provided != MPI_THREAD_MULTIPLE)
    throw DistBackendError("ProcessGroupMPI: the MPI library does not support MPI_THREAD_MULTIPLE");
  // MPICH installs a SIGUSR1 handler whose news of a dead process makes its progress engine abort the whole
  // job (its fault tolerance is off); unless the program handles SIGUSR1 itself, ember's replaces it.
  if (usr1_unhandled) ProcessGroupMPI::watch_job_failures();
}

std::shared_ptr<ProcessGroupMPI> track(std::shared_ptr<ProcessGroupMPI> pg) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  live_groups.push_back(pg);
  return pg;
}

uint8_t* bytes(const Buffer& buf) { return static_cast<uint8_t*>(buf.data); }

std::vector<MPI_Aint> displacements(const std::vector<MPI_Count>& counts) {
  std::vector<MPI_Aint> displs(counts.size());
  MPI_Aint at = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    displs[i] = at;
    at += counts[i];
  }
  return displs;
}

}  // namespace

std::atomic<bool> ProcessGroupMPI::any_broken{false};

std::shared_ptr<ProcessGroupMPI> ProcessGroupMPI::world(Millis timeout) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  ensure_initialized();
  MPI_Comm comm;
  check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
  auto pg = std::make_shared<ProcessGroupMPI>(comm, timeout);
  live_groups.push_back(pg);
  return pg;
}

std::shared_ptr<ProcessGroupMPI> ProcessGroupMPI::subgroup(const std::vector<int>& world_ranks, Millis timeout) {
  MPI_Group world_group, group;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    ensure_initialized();
  }
  check(MPI_Comm_group(MPI_COMM_WORLD, &world_group), "MPI_Comm_group");
  int rc = MPI_Group_incl(world_group, static_cast<int>(world_ranks.size()), world_ranks.data(), &group);
  MPI_Group_free(&world_group);
  check(rc, "MPI_Group_incl");
  MPI_Comm comm;
  rc = MPI_Comm_create(MPI_COMM_WORLD, group, &comm);
  MPI_Group_free(&group);
  check(rc, "MPI_Comm_create");
  if (comm == MPI_COMM_NULL) return nullptr;
  return track(std::make_shared<ProcessGroupMPI>(comm, timeout));
}

void ProcessGroupMPI::finalize() {
  std::vector<std::shared_ptr<ProcessGroupMPI>> groups;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (mpi_finalized) return;
    for (auto& weak : live_groups)
      if (auto pg = weak.lock()) groups.push_back(pg);
    live_groups.clear();
  }
  for (auto& pg : groups) pg->shutdown();
  std::lock_guard<std::mutex> lock(registry_mutex);
  int initialized = 0, done = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&done);
  // After a failure MPI_Finalize could wait for a dead peer for ever: the job is failing anyway, so skip it.
  if (initialized && !done && !any_broken) {
    mpi::free_user_ops();
    MPI_Finalize();
  }
  mpi_finalized = true;
}

bool ProcessGroupMPI::finalized() {
  std::lock_guard<std::mutex> lock(registry_mutex);
  return mpi_finalized;
}

ProcessGroupMPI::ProcessGroupMPI(MPI_Comm comm, Millis timeout) : ProcessGroupBase(0, 1, timeout), comm_(comm) {
  if (timeout_.count() <= 0) throw std::invalid_argument("ProcessGroupMPI: the timeout must be positive");
  // Errors come back as codes (raised as DistBackendError) instead of aborting the job.
  check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  check(MPI_Comm_dup(comm_, &notices_), "MPI_Comm_dup");
  check(MPI_Comm_set_errhandler(notices_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  post_notice_recv();
  start_worker();
}

ProcessGroupMPI::~ProcessGroupMPI() { shutdown(); }

void ProcessGroupMPI::shutdown() {
  if (!stop_worker()) return;
  std::vector<PendingTransfer<MPI_Request>> transfers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    transfers.swap(transfers_);
  }
  for (auto& t : transfers) {
    *t.done = true;  // tells the waiter to cancel a transfer still pending
    t.waiter.join();
  }
  if (notice_request_ != MPI_REQUEST_NULL && !mpi_finalized) {
    MPI_Cancel(&notice_request_);
    MPI_Wait(&notice_request_, MPI_STATUS_IGNORE);
  }
  // A broken group's communicators still have collectives in flight: they stay allocated.
  if (broken_by_.empty() && !mpi_finalized) {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    if (notices_ != MPI_COMM_NULL) MPI_Comm_free(&notices_);
  }
  comm_ = notices_ = MPI_COMM_NULL;
}

std::shared_ptr<Work> ProcessGroupMPI::enqueue(std::string name, std::function<Started(MPI_Comm)> start) {
  auto work = std::make_shared<Work>();
  std::lock_guard<std::mutex> lock(mutex_);
  throw_if_stopping(name);
  queue_job([this, work, name = std::move(name), start = std::move(start)] {
    try {
      throw_if_broken(name);
      uint64_t seq = next_seq_++;
      Started started;
      try {
        started = start(comm_);
      } catch (const DistBackendError& e) {
        fail(name, seq, e.what(), -1);
      }
      wait_collective(name, seq, std::move(started));
      work->finish(nullptr);
    } catch (...) {
      work->finish(std::current_exception());
    }
  });
  return work;
}

void ProcessGroupMPI::check_root(int root, const char* name) const {
  if (root < 0 || root >= size_)
    throw std::invalid_argument(std::string(name) + ": root " + std::to_string(root) + " is not in [0, " +
                                std::to_string(size_) + ")");
}

std::shared_ptr<Work> ProcessGroupMPI::allreduce(Buffer buf, ReduceOp op) {
  MPI_Op mop = mpi::reduce_op(buf.type, op);  // a bad op raises here, in the caller
  MPI_Datatype type = mpi::datatype(buf.type);
  return enqueue("all_reduce", [buf, mop, type](MPI_Comm comm) {
    Started s;
    check(MPI_Iallreduce_c(MPI_IN_PLACE, buf.data, buf.count, type, mop, comm, &s.request), "MPI_Iallreduce");
    return s;
  });
}

std::shared_ptr<Work> ProcessGroupMPI::broadcast(Buffer buf, int root) {
  check_root(root, "broadcast");
  MPI_Datatype type = mpi::datatype(buf.type);
  return enqueue("broadcast", [buf, type, root](MPI_Comm comm) {
    Started s;
    check(MPI_Ibcast_c(buf.data, buf.count, type, root, comm, &s.request), "MPI_Ibcast");
    return s;
  });
}

std::shared_ptr<Work> ProcessGroupMPI::reduce(Buffer buf, ReduceOp op, int root) {
  check_root(root, "reduce");
  MPI_Op mop = mpi::reduce_op(buf.type, op);
  MPI_Datatype type = mpi::datatype(buf.type);
  return enqueue("reduce", [this, buf, mop, type, root](MPI_Comm comm) {
    const void* send = rank_ == root ? MPI_IN_PLACE : buf.data;
    Started s;
    check(MPI_Ireduce_c(send, buf.data, buf.count, type, mop, root, comm, &s.request), "MPI_Ireduce");
    return s;
  });
}

std::shared_ptr<Work> ProcessGroupMPI::allgather(Buffer in, Buffer out) {
  check_allgather(in, out);
  MPI_Datatype type = mpi::datatype(in.type);
  return enqueue("all_gather", [in, out, type](MPI_Comm comm) {
    Started s;
    check(MPI_Iallgather_c(in.data, in.count, type, out.data, in.count, type, comm, &s.request), "MPI_Iallgather");
    return s;
  });
}

std::shared_ptr<Work> ProcessGroupMPI::barrier() {
  return enqueue("barrier", [](MPI_Comm comm) {
    Started s;
    check(MPI_Ibarrier(comm, &s.request), "MPI_Ibarrier");
    return s;
  });
}

std::shared_ptr<Work> ProcessGroupMPI::gather(Buffer in, Buffer out, int root) {
  check_root(root, "gather");
  check_gather(in, out, root);
  return enqueue("gather", [this, in, out, root](MPI_Comm comm) {
    void* recv = rank_ == root ? out.data : nullptr;
    Started s;
    check(MPI_Igather_c(in.data, in.count, MPI_BYTE, recv, in.count, MPI_BYTE, root, comm, &s.request), "MPI_Igather");
    return s;
  });
}

std::shared_ptr<Work> ProcessGroupMPI::scatter(Buffer in, Buffer out, int root) {
  check_root(root, "scatter");
  check_scatter(in, out, root);
  return enqueue("scatter", [this, in, out, root](MPI_Comm comm) {
    const void* send = rank_ == root ? in.data : nullptr;
    Started s;
    check(MPI_Iscatter_c(send, out.count, MPI_BYTE, out.data, out.count, MPI_BYTE, root, comm, &s.request),
          "MPI_Iscatter");
    return s;
  });
}

std::shared_ptr<Work> ProcessGroupMPI::alltoallv(void* in, std::vector<int64_t> in_counts, void* out,
                                                 std::vector<int64_t> out_counts) {
  check_alltoallv(in_counts, out_counts);
  std::vector<MPI_Count> sends(in_counts.begin(), in_counts.end()), recvs(out_counts.begin(), out_counts.end());
  return enqueue("all_to_all", [in, out, sends = std::move(sends), recvs = std::move(recvs)](MPI_Comm comm) {
    // The count and displacement arrays are MPI's to read until the collective completes.
    struct Layout {
      std::vector<MPI_Count> sends, recvs;
      std::vector<MPI_Aint> sdispls, rdispls;
    };
    auto layout = std::make_shared<Layout>(Layout{sends, recvs, displacements(sends), displacements(recvs)});
    Started s;
    s.keep_alive = layout;
    check(MPI_Ialltoallv_c(in, layout->sends.data(), layout->sdispls.data(), MPI_BYTE, out, layout->recvs.data(),
                           layout->rdispls.data(), MPI_BYTE, comm, &s.request),
          "MPI_Ialltoallv");
    return s;
  });
}

std::shared_ptr<Work> ProcessGroupMPI::post_p2p(std::string where, MPI_Request request, bool sending) {
  auto work = std::make_shared<Work>();
  auto done = std::make_shared<std::atomic<bool>>(false);  // set by shutdown(): cancel what is still pending
  auto req = std::make_shared<MPI_Request>(request);
  // MPI_Test in a loop rather than MPI_Wait, so shutdown() can stop a transfer whose peer never comes, and the
  // group's timeout ends one that takes too long (as Gloo's transfers are).
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  auto wait = [work, req, sending, done, where, deadline, timeout = timeout_] {
    try {
      for (;;) {
        int flag = 0;
        MPI_Status status;
        check(MPI_Test(req.get(), &flag, &status), where);
        if (flag) {
          work->set_source(sending ? -1 : status.MPI_SOURCE);
          work->finish(nullptr);
          break;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
          // A receive is cancelled (unless its message came meanwhile); a send cannot be, so MPI may still
          // read its buffer (kept referenced by the Python side) and MPI_Finalize could wait for it: skipped.
          if (!sending) {
            MPI_Cancel(req.get());
            MPI_Wait(req.get(), &status);
            int cancelled = 0;
            MPI_Test_cancelled(&status, &cancelled);
            if (!cancelled) {
              work->set_source(status.MPI_SOURCE);
              work->finish(nullptr);
              break;
            }
          } else {
            any_broken = true;
          }
          throw DistBackendError(where + ": it did not complete within the group's timeout of " +
                                 std::to_string(timeout.count()) + "ms");
        }
        if (*done) {
          if (!sending) {
            MPI_Cancel(req.get());
            MPI_Wait(req.get(), MPI_STATUS_IGNORE);
          }
          throw DistBackendError(where + ": aborted, the process group was destroyed");
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    } catch (...) {
      work->finish(std::current_exception());
    }
    *done = true;
  };
  std::lock_guard<std::mutex> lock(mutex_);
  add_transfer(transfers_, {req, sending, done, std::thread(wait)});
  return work;
}

std::shared_ptr<Work> ProcessGroupMPI::send(Buffer buf, int dst, uint32_t tag) {
  if (dst < 0 || dst >= size_) throw std::invalid_argument("send: invalid destination rank " + std::to_string(dst));
  std::string where = transfer_failure("send", dst, true);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    throw_if_stopping("send");
  }
  MPI_Request request;
  check(MPI_Isend_c(buf.data, buf.count, MPI_BYTE, dst, static_cast<int>(tag), comm_, &request), where);
  return post_p2p(where, request, true);
}

std::shared_ptr<Work> ProcessGroupMPI::recv(Buffer buf, int src, uint32_t tag) {
  if (src >= size_) throw std::invalid_argument("recv: invalid source rank " + std::to_string(src));
  std::string where = transfer_failure("recv", src, false);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    throw_if_stopping("recv");
  }
  MPI_Request request;
  check(MPI_Irecv_c(buf.data, buf.count, MPI_BYTE, src < 0 ? MPI_ANY_SOURCE : src, static_cast<int>(tag), comm_,
                    &request),
        where);
  return post_p2p(where, request, false);
}

}  // namespace ember::distributed
