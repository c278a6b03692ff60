// ProcessGroupGloo: collectives over Gloo's TCP transport, with ranks meeting through our Store. Buffers
// are raw contiguous memory (the Python layer passes tensors' data pointers and keeps them alive); one
// worker thread runs the collectives in call order, so every rank issues them with matching Gloo tags.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <thread>

#include "distributed/store.h"
#include "distributed/work.h"

namespace gloo {
class Context;
}

namespace ember::distributed {

enum class ReduceOp { SUM, PRODUCT, MIN, MAX, BAND, BOR, BXOR };
enum class ElemType { Float32, Float64, Int32, Int64, Int8, UInt8 };

struct Buffer {
  void* data;
  size_t count;  // elements
  ElemType type;
};

class ProcessGroupGloo {
 public:
  // Connects to every other rank. Peers reach this process at the address of network interface iface
  // when given (PyTorch's GLOO_SOCKET_IFNAME), else at hostname.
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, Millis timeout, const std::string& hostname,
                   const std::string& iface);
  ~ProcessGroupGloo();
  ProcessGroupGloo(const ProcessGroupGloo&) = delete;
  ProcessGroupGloo& operator=(const ProcessGroupGloo&) = delete;

  std::shared_ptr<Work> allreduce(Buffer buf, ReduceOp op);
  std::shared_ptr<Work> broadcast(Buffer buf, int root);
  std::shared_ptr<Work> reduce(Buffer buf, ReduceOp op, int root);
  std::shared_ptr<Work> allgather(Buffer in, Buffer out);  // out holds size * in.count elements
  std::shared_ptr<Work> barrier();

  int rank() const { return rank_; }
  int size() const { return size_; }
  Millis timeout() const { return timeout_; }

 private:
  std::shared_ptr<Work> enqueue(std::string name, std::function<void(uint32_t tag)> run);
  void worker_loop();

  int rank_, size_;
  Millis timeout_;
  std::shared_ptr<gloo::Context> context_;
  uint32_t next_tag_ = 0;
  std::mutex mutex_;
  std::condition_variable queued_;
  bool stopping_ = false;
  std::deque<std::function<void()>> queue_;
  std::thread worker_;
};

}  // namespace ember::distributed
