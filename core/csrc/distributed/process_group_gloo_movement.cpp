// ProcessGroupGloo's data movement (gather, scatter, all-to-all) and point-to-point transfers. These only
// move bytes, so buffers arrive as byte counts whatever the tensors' dtype. Sends and receives are posted
// in the caller's thread, in call order (Gloo matches them by peer and slot), and a thread per transfer waits
// for it, so a receive never waits behind a queued collective or another slow peer.
#include <gloo/alltoallv.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/scatter.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include "distributed/process_group_gloo.h"

namespace ember::distributed {

namespace {

constexpr uint8_t kPointToPointSlotPrefix = 0x20;  // above Gloo's own collective prefixes (0x01..0x08)

uint8_t* bytes(const Buffer& buf) { return static_cast<uint8_t*>(buf.data); }

}  // namespace

std::shared_ptr<Work> ProcessGroupGloo::gather(Buffer in, Buffer out, int root) {
  check_gather(in, out, root);
  return enqueue("gather", [this, in, out, root](uint32_t tag) {
    gloo::GatherOptions opts(live_context("gather"));
    opts.setInput(bytes(in), in.count);
    if (rank_ == root) opts.setOutput(bytes(out), out.count);
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::gather(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::scatter(Buffer in, Buffer out, int root) {
  check_scatter(in, out, root);
  return enqueue("scatter", [this, in, out, root](uint32_t tag) {
    gloo::ScatterOptions opts(live_context("scatter"));
    if (rank_ == root) {
      std::vector<uint8_t*> parts;
      for (int r = 0; r < size_; ++r) parts.push_back(bytes(in) + r * out.count);
      opts.setInputs(parts, out.count);
    }
    opts.setOutput(bytes(out), out.count);
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::scatter(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::alltoallv(void* in, std::vector<int64_t> in_counts, void* out,
                                                  std::vector<int64_t> out_counts) {
  check_alltoallv(in_counts, out_counts);
  return enqueue("all_to_all",
                 [this, in, out, in_counts = std::move(in_counts), out_counts = std::move(out_counts)](uint32_t tag) {
                   gloo::AlltoallvOptions opts(live_context("all_to_all"));
                   opts.setInput(static_cast<uint8_t*>(in), in_counts);
                   opts.setOutput(static_cast<uint8_t*>(out), out_counts);
                   opts.setTag(tag);
                   opts.setTimeout(timeout_);
                   gloo::alltoallv(opts);
                 });
}

std::shared_ptr<Work> ProcessGroupGloo::post_p2p(std::string name, int peer,
                                                 std::shared_ptr<gloo::transport::UnboundBuffer> ub, bool sending) {
  auto work = std::make_shared<Work>();
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::string where = transfer_failure(name, peer, sending);
  auto wait = [work, ub, sending, done, where, timeout = timeout_] {
    try {
      int source = -1;
      bool completed = sending ? ub->waitSend(&source, timeout) : ub->waitRecv(&source, timeout);
      if (!completed) throw DistBackendError(where + ": aborted, the process group was destroyed");
      work->set_source(sending ? -1 : source);
      work->finish(nullptr);
    } catch (const gloo::Exception& e) {
      work->finish(std::make_exception_ptr(DistBackendError(where + ": " + e.what())));
    } catch (...) {
      work->finish(std::current_exception());
    }
    *done = true;
  };
  std::lock_guard<std::mutex> lock(mutex_);
  throw_if_stopping(name);
  add_transfer(transfers_, {ub, sending, done, std::thread(wait)});
  return work;
}

std::shared_ptr<Work> ProcessGroupGloo::send(Buffer buf, int dst, uint32_t tag) {
  std::shared_ptr<gloo::transport::UnboundBuffer> ub = live_context("send")->createUnboundBuffer(buf.data, buf.count);
  ub->send(dst, gloo::Slot::build(kPointToPointSlotPrefix, tag));
  return post_p2p("send", dst, ub, true);
}

std::shared_ptr<Work> ProcessGroupGloo::recv(Buffer buf, int src, uint32_t tag) {
  std::shared_ptr<gloo::transport::UnboundBuffer> ub = live_context("recv")->createUnboundBuffer(buf.data, buf.count);
  uint64_t slot = gloo::Slot::build(kPointToPointSlotPrefix, tag);
  if (src >= 0) {
    ub->recv(src, slot);
  } else {
    std::vector<int> peers;
    for (int r = 0; r < size_; ++r)
      if (r != rank_) peers.push_back(r);
    ub->recv(peers, slot);
  }
  return post_p2p("recv", src, ub, false);
}

}  // namespace ember::distributed
