// ProcessGroupGloo: collectives over Gloo's TCP transport, with ranks meeting through our Store. Buffers
// are raw contiguous memory (the Python layer passes tensors' data pointers and keeps them alive); one
// worker thread runs the collectives in call order, so every rank issues them with matching Gloo tags.
// Point-to-point sends and receives are posted at once and completed by a second thread. The first
// failure (a peer gone, a timeout) breaks the group: its sockets close, so every peer fails fast too,
// and the error names the collective and the ranks that did not take part (found through the store).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "distributed/process_group_base.h"

namespace gloo {
class Context;
namespace transport {
class UnboundBuffer;
}
}  // namespace gloo

namespace ember::distributed {

class ProcessGroupGloo : public ProcessGroupBase {
 public:
  // Connects to every other rank. Peers reach this process at the address of network interface iface
  // when given (PyTorch's GLOO_SOCKET_IFNAME), else at hostname.
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, Millis timeout, const std::string& hostname,
                   const std::string& iface);
  ~ProcessGroupGloo();
  // Runs the queued collectives, aborts pending sends/receives, joins the threads; the group is unusable after.
  void shutdown();

  std::shared_ptr<Work> allreduce(Buffer buf, ReduceOp op);
  std::shared_ptr<Work> broadcast(Buffer buf, int root);
  std::shared_ptr<Work> reduce(Buffer buf, ReduceOp op, int root);
  std::shared_ptr<Work> allgather(Buffer in, Buffer out);  // out holds size * in.count elements
  std::shared_ptr<Work> barrier();
  // Data movement: buffers are bytes (the element type does not matter). gather's out (size * in.count)
  // and scatter's in (size * out.count) are read on root only.
  std::shared_ptr<Work> gather(Buffer in, Buffer out, int root);
  std::shared_ptr<Work> scatter(Buffer in, Buffer out, int root);
  // in_counts[r] bytes of in go to rank r; out_counts[r] bytes from rank r land in out, in rank order.
  std::shared_ptr<Work> alltoallv(void* in, std::vector<int64_t> in_counts, void* out, std::vector<int64_t> out_counts);
  // Point to point, matched by (peer, tag); recv from src < 0 takes the first sender, named by Work::source().
  std::shared_ptr<Work> send(Buffer buf, int dst, uint32_t tag);
  std::shared_ptr<Work> recv(Buffer buf, int src, uint32_t tag);

 private:
  std::shared_ptr<Work> enqueue(std::string name, std::function<void(uint32_t tag)> run);
  std::shared_ptr<gloo::Context> live_context(const std::string& name);  // raises once the group is broken
  // Closes the group's connections and says which ranks did not reach collective number seq.
  std::string fail(const std::string& name, uint32_t seq, const std::string& cause);
  // Waits for a posted send/recv in a thread of its own (so one slow peer delays no other transfer).
  std::shared_ptr<Work> post_p2p(std::string name, int peer, std::shared_ptr<gloo::transport::UnboundBuffer> ub,
                                 bool sending);

  std::shared_ptr<Store> store_;
  std::shared_ptr<gloo::Context> context_;  // null once broken (under mutex_)
  std::string broken_by_;                   // the failure that broke it
  uint32_t next_tag_ = 0;
  // Under mutex_; finished ones are joined at the next post.
  std::vector<PendingTransfer<gloo::transport::UnboundBuffer>> transfers_;
};

}  // namespace ember::distributed
