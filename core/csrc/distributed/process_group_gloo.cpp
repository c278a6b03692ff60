// ProcessGroupGloo: rendezvous, the worker thread, failure handling, and the reductions mapped onto Gloo's
// options API (data movement and point to point: process_group_gloo_movement.cpp). Gloo's errors (a peer
// that closed its sockets, a timeout) become DistBackendError naming the collective, this rank and the
// ranks that never reached the collective, on every rank of the group.
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
#include <cstring>
#include <type_traits>

#include "distributed/gloo_store_adapter.h"

namespace ember::distributed {

namespace {

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

// bfloat16 as its bit pattern: the high half of a float32, rounded to nearest even on the way back.
struct BFloat16 {
  uint16_t bits;
};

float to_float(BFloat16 x) {
  uint32_t u = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

BFloat16 to_bfloat16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return BFloat16{static_cast<uint16_t>((u >> 16) | 0x40)};  // NaN stays NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return BFloat16{static_cast<uint16_t>(u >> 16)};
}

template <typename Op>
void bfloat16_elementwise(void* c, const void* a, const void* b, size_t n) {
  auto out = static_cast<BFloat16*>(c);
  auto x = static_cast<const BFloat16*>(a);
  auto y = static_cast<const BFloat16*>(b);
  for (size_t i = 0; i < n; ++i) out[i] = to_bfloat16(Op{}(to_float(x[i]), to_float(y[i])));
}

struct Minimum {
  float operator()(float a, float b) const { return a != a ? a : (b < a ? b : a); }  // NaN propagates
};
struct Maximum {
  float operator()(float a, float b) const { return a != a ? a : (b > a ? b : a); }
};

ReduceFn bfloat16_reduce_fn(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
      return &bfloat16_elementwise<std::plus<float>>;
    case ReduceOp::PRODUCT:
      return &bfloat16_elementwise<std::multiplies<float>>;
    case ReduceOp::MIN:
      return &bfloat16_elementwise<Minimum>;
    case ReduceOp::MAX:
      return &bfloat16_elementwise<Maximum>;
    default:
      throw std::invalid_argument("Cannot use this ReduceOp (BAND/BOR/BXOR) with floating-point tensors");
  }
}

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

// bool as bytes 0/1: SUM and MAX are a logical or, PRODUCT and MIN a logical and (PyTorch's results).
ReduceFn bool_reduce_fn(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::MAX:
    case ReduceOp::BOR:
      return &elementwise<uint8_t, std::bit_or<uint8_t>>;
    case ReduceOp::PRODUCT:
    case ReduceOp::MIN:
    case ReduceOp::BAND:
      return &elementwise<uint8_t, std::bit_and<uint8_t>>;
    case ReduceOp::BXOR:
      return &elementwise<uint8_t, std::bit_xor<uint8_t>>;
  }
  throw std::invalid_argument("ProcessGroupGloo: unknown ReduceOp");
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
    case ElemType::Bool:
      return f(uint8_t{});
    case ElemType::Float16:
      return f(gloo::float16{});
    case ElemType::BFloat16:
      return f(BFloat16{});
  }
  throw std::invalid_argument("ProcessGroupGloo: unsupported element type");
}

// The reduction for (type, op); an op the type does not allow raises invalid_argument at the call.
ReduceFn typed_reduce_fn(ElemType type, ReduceOp op) {
  if (type == ElemType::Bool) return bool_reduce_fn(op);
  if (type == ElemType::BFloat16) return bfloat16_reduce_fn(op);
  return dispatch(type, [&](auto t) -> ReduceFn {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, BFloat16>)
      return nullptr;  // handled above
    else
      return reduce_fn<T>(op);  // gloo's math covers float16 too
  });
}

}  // namespace

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, Millis timeout,
                                   const std::string& hostname, const std::string& iface)
    : ProcessGroupBase(rank, size, timeout), store_(store) {
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
  start_worker();
}

ProcessGroupGloo::~ProcessGroupGloo() { shutdown(); }

void ProcessGroupGloo::shutdown() {
  if (!stop_worker()) return;
  std::vector<PendingTransfer<gloo::transport::UnboundBuffer>> transfers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    transfers.swap(transfers_);  // post_p2p adds none now the group is stopping
  }
  for (auto& t : transfers) {
    if (!*t.done) {
      if (t.sending)
        t.handle->abortWaitSend();
      else
        t.handle->abortWaitRecv();
    }
    t.waiter.join();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (context_) {
    context_.reset();
    broken_by_ = "the group was destroyed";
  }
}

std::shared_ptr<gloo::Context> ProcessGroupGloo::live_context(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!context_) throw unusable(name, broken_by_);
  return context_;
}

std::string ProcessGroupGloo::fail(const std::string& name, uint32_t seq, const std::string& cause) {
  std::string what = collective_failure(name, seq);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!context_) return what + ": " + cause;  // already broken: the first failure was diagnosed
    context_.reset();  // closes our sockets: peers still inside a collective with us fail now, not at timeout
    broken_by_ = what;
  }
  // Every rank that failed in this collective leaves a mark; those without one after a grace period never
  // reached it (dead or hung). Closing our sockets above makes the live ranks fail within moments, so a
  // second is enough, and a restart (the elastic agent's) is not held up. The store may be gone with its
  // host: then say so instead.
  std::string missing;
  try {
    std::string prefix = "failed/" + std::to_string(seq) + "/";
    store_->set(prefix + std::to_string(rank_), Bytes{1});
    auto deadline = std::chrono::steady_clock::now() + std::min(timeout_, Millis(1000));
    for (;;) {
      missing = rank_list([&](int r) { return !store_->check({prefix + std::to_string(r)}); });
      if (missing.empty() || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(Millis(50));
    }
  } catch (const std::exception& e) {
    return what + " (the store is unreachable, so its host may be down: " + e.what() + "): " + cause;
  }
  if (missing.empty()) return what + " on every rank: " + cause;
  return with_absent_ranks(what, missing, cause);
}

std::shared_ptr<Work> ProcessGroupGloo::enqueue(std::string name, std::function<void(uint32_t)> run) {
  auto work = std::make_shared<Work>();
  std::lock_guard<std::mutex> lock(mutex_);
  throw_if_stopping(name);
  uint32_t tag = next_tag_++;
  queue_job([this, work, tag, name = std::move(name), run = std::move(run)] {
    try {
      run(tag);
      work->finish(nullptr);
    } catch (const gloo::Exception& e) {
      work->finish(std::make_exception_ptr(DistBackendError(fail(name, tag, e.what()))));
    } catch (...) {
      work->finish(std::current_exception());
    }
  });
  return work;
}

std::shared_ptr<Work> ProcessGroupGloo::allreduce(Buffer buf, ReduceOp op) {
  ReduceFn fn = typed_reduce_fn(buf.type, op);  // a bad op raises here, in the caller
  return enqueue("all_reduce", [this, buf, fn](uint32_t tag) {
    gloo::AllreduceOptions opts(live_context("all_reduce"));
    dispatch(buf.type, [&](auto t) {
      using T = decltype(t);
      opts.setOutput(static_cast<T*>(buf.data), buf.count);
      return 0;
    });
    opts.setReduceFunction(fn);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    // Segments of 2 MB: Gloo's default 1 MB ones cost more wake-ups per byte; 4 MB and larger ones keep more
    // in flight than loopback TCP takes on a busy machine (spurious retransmits and stalls of a whole RTO,
    // seen in ss -ti), so their slow runs were 2-3x slower. A/B of 6 alternating runs on 2 ranks, 100 MB:
    // median of each run's best 73 ms at 2 MB, 88 ms at 1 MB, 91 ms at 4 MB (PyTorch's gloo: 86 ms).
    opts.setMaxSegmentSize(size_t{2} << 20);
    gloo::allreduce(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::broadcast(Buffer buf, int root) {
  return enqueue("broadcast", [this, buf, root](uint32_t tag) {
    gloo::BroadcastOptions opts(live_context("broadcast"));
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
  ReduceFn fn = typed_reduce_fn(buf.type, op);
  return enqueue("reduce", [this, buf, fn, root](uint32_t tag) {
    gloo::ReduceOptions opts(live_context("reduce"));
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
  check_allgather(in, out);
  return enqueue("all_gather", [this, in, out](uint32_t tag) {
    gloo::AllgatherOptions opts(live_context("all_gather"));
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
    gloo::BarrierOptions opts(live_context("barrier"));
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::barrier(opts);
  });
}

}  // namespace ember::distributed
