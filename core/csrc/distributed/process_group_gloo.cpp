// ProcessGroupGloo: rendezvous, the worker thread, and each collective mapped onto Gloo's options API.
// Gloo's errors (a peer that closed its sockets, a timeout) become DistBackendError naming the collective
// and this rank, on every rank that was waiting for the lost peer.
#include "distributed/process_group_gloo.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>

#include <cstdint>
#include <type_traits>

#include "distributed/gloo_store_adapter.h"

namespace ember::distributed {

namespace {

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

template <typename T, typename Op>
void elementwise(void* c, const void* a, const void* b, size_t n) {
  auto out = static_cast<T*>(c);
  auto x = static_cast<const T*>(a);
  auto y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) out[i] = Op{}(x[i], y[i]);
}

template <typename T>
ReduceFn reduce_fn(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
      return &gloo::sum<T>;
    case ReduceOp::PRODUCT:
      return &gloo::product<T>;
    case ReduceOp::MIN:
      return &gloo::min<T>;
    case ReduceOp::MAX:
      return &gloo::max<T>;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    if (op == ReduceOp::BAND) return &elementwise<T, std::bit_and<T>>;
    if (op == ReduceOp::BOR) return &elementwise<T, std::bit_or<T>>;
    if (op == ReduceOp::BXOR) return &elementwise<T, std::bit_xor<T>>;
  }
  throw std::invalid_argument("Cannot use this ReduceOp (BAND/BOR/BXOR) with floating-point tensors");
}

template <typename F>
auto dispatch(ElemType type, F&& f) {
  switch (type) {
    case ElemType::Float32:
      return f(float{});
    case ElemType::Float64:
      return f(double{});
    case ElemType::Int32:
      return f(int32_t{});
    case ElemType::Int64:
      return f(int64_t{});
    case ElemType::Int8:
      return f(int8_t{});
    case ElemType::UInt8:
      return f(uint8_t{});
  }
  throw std::invalid_argument("ProcessGroupGloo: unsupported element type");
}

}  // namespace

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, Millis timeout,
                                   const std::string& hostname, const std::string& iface)
    : rank_(rank), size_(size), timeout_(timeout) {
  if (size < 1 || rank < 0 || rank >= size)
    throw std::invalid_argument("ProcessGroupGloo: rank " + std::to_string(rank) + " is not in [0, " +
                                std::to_string(size) + ")");
  gloo::transport::tcp::attr attr;
  if (iface.empty())
    attr.hostname = hostname;
  else
    attr.iface = iface;
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
  context->setTimeout(timeout);
  GlooStoreAdapter adapter(std::move(store));
  try {
    context->connectFullMesh(adapter, device);
  } catch (const gloo::Exception& e) {
    throw DistBackendError("ProcessGroupGloo: rank " + std::to_string(rank) + " could not connect to its " +
                           std::to_string(size - 1) + " peers: " + e.what());
  }
  context_ = std::move(context);
  worker_ = std::thread([this] { worker_loop(); });
}

ProcessGroupGloo::~ProcessGroupGloo() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_all();
  worker_.join();
}

void ProcessGroupGloo::worker_loop() {
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

std::shared_ptr<Work> ProcessGroupGloo::enqueue(std::string name, std::function<void(uint32_t)> run) {
  auto work = std::make_shared<Work>();
  std::lock_guard<std::mutex> lock(mutex_);
  uint32_t tag = next_tag_++;
  queue_.push_back([this, work, tag, name = std::move(name), run = std::move(run)] {
    try {
      run(tag);
      work->finish(nullptr);
    } catch (const gloo::Exception& e) {
      work->finish(std::make_exception_ptr(DistBackendError(name + " failed on rank " + std::to_string(rank_) + " of " +
                                                            std::to_string(size_) + ": " + e.what())));
    } catch (...) {
      work->finish(std::current_exception());
    }
  });
  queued_.notify_one();
  return work;
}

std::shared_ptr<Work> ProcessGroupGloo::allreduce(Buffer buf, ReduceOp op) {
  ReduceFn fn = dispatch(buf.type, [&](auto t) { return reduce_fn<decltype(t)>(op); });  // bad op: raise now
  return enqueue("all_reduce", [this, buf, fn](uint32_t tag) {
    gloo::AllreduceOptions opts(context_);
    dispatch(buf.type, [&](auto t) {
      using T = decltype(t);
      opts.setOutput(static_cast<T*>(buf.data), buf.count);
      return 0;
    });
    opts.setReduceFunction(fn);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::allreduce(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::broadcast(Buffer buf, int root) {
  return enqueue("broadcast", [this, buf, root](uint32_t tag) {
    gloo::BroadcastOptions opts(context_);
    dispatch(buf.type, [&](auto t) {
      using T = decltype(t);
      if (rank_ == root) opts.setInput(static_cast<T*>(buf.data), buf.count);
      opts.setOutput(static_cast<T*>(buf.data), buf.count);
      return 0;
    });
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::broadcast(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::reduce(Buffer buf, ReduceOp op, int root) {
  ReduceFn fn = dispatch(buf.type, [&](auto t) { return reduce_fn<decltype(t)>(op); });
  return enqueue("reduce", [this, buf, fn, root](uint32_t tag) {
    gloo::ReduceOptions opts(context_);
    dispatch(buf.type, [&](auto t) {
      using T = decltype(t);
      opts.setInput(static_cast<T*>(buf.data), buf.count);
      opts.setOutput(static_cast<T*>(buf.data), buf.count);
      return 0;
    });
    opts.setRoot(root);
    opts.setReduceFunction(fn);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::reduce(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::allgather(Buffer in, Buffer out) {
  if (out.type != in.type || out.count != in.count * static_cast<size_t>(size_))
    throw std::invalid_argument("all_gather: the output must hold world_size * input elements of the input's type");
  return enqueue("all_gather", [this, in, out](uint32_t tag) {
    gloo::AllgatherOptions opts(context_);
    dispatch(in.type, [&](auto t) {
      using T = decltype(t);
      opts.setInput(static_cast<T*>(in.data), in.count);
      opts.setOutput(static_cast<T*>(out.data), out.count);
      return 0;
    });
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::allgather(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::barrier() {
  return enqueue("barrier", [this](uint32_t tag) {
    gloo::BarrierOptions opts(context_);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::barrier(opts);
  });
}

}  // namespace ember::distributed
