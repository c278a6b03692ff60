// DistributedDataParallel's reducer: parameters are grouped into buckets, each a flat gradient buffer; as
// backward accumulates a parameter's gradient (a post-accumulate hook), the gradient is copied into its
// bucket, and a bucket whose gradients are all there is handed to the communication (all-reduce or a
// comm hook) at once, in bucket order, so reduction overlaps the rest of backward. Once backward ends (a
// queued engine callback) the reducer waits for every bucket and writes the reduced gradients back.
// Communication is a function it is given: the process group lives in ember._distributed_C.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tensor/tensor_impl.h"

namespace ember::ddp {

// Starts the reduction of bucket `index` (its flat gradient) and returns a function that waits for it and
// gives the reduced flat gradient (the same tensor, or a new one of its size).
using LaunchFn = std::function<std::function<Tensor()>(size_t index, const Tensor& flat)>;
// Sums every rank's 0/1 "this parameter got a gradient here" flags (int32) over the group.
using UsageSumFn = std::function<Tensor(const Tensor& used)>;

struct ReducerOptions {
  bool gradient_as_bucket_view = false;
  bool find_unused_parameters = false;
  bool static_graph = false;  // unused parameters found in the first iteration are assumed from then on
  int rank = 0;               // named in errors
};

class Reducer {
 public:
  // buckets[b] lists indices into params, all of one dtype; every parameter is in exactly one bucket.
  Reducer(std::vector<Tensor> params, std::vector<std::vector<size_t>> buckets, LaunchFn launch, UsageSumFn usage_sum,
          ReducerOptions options);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // Arms the reducer for the backward of `outputs` (DDP's forward calls it when gradients will be synced);
  // raises when the previous armed iteration never finished its reduction.
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  // Replaces the communication (register_comm_hook).
  void set_launch(LaunchFn launch) { launch_ = std::move(launch); }
  // Join's shadow of a backward on a rank with no input: every bucket reduced with zero gradients, in
  // order, so the ranks still training find their collectives matched. Gradients are not touched.
  void reduce_zero_buckets();

  const std::vector<std::vector<size_t>>& bucket_indices() const { return buckets_; }
  const Tensor& bucket_buffer(size_t b) const { return flat_[b]; }
  bool armed() const { return armed_; }
  // The order the last finished iteration's gradients became ready (parameters found unused last), which
  // DDP rebuilds its buckets from after the first iteration; empty before one finished.
  const std::vector<size_t>& ready_order() const { return ready_order_; }

 private:
  struct Slot {  // where a parameter's gradient lives in its bucket
    size_t bucket;
    int64_t offset, numel;
  };
  void on_gradient(size_t i);
  void mark_ready(size_t i);
  void launch_ready_buckets();
  void finalize();
  Tensor slice(size_t i) const;  // parameter i's view of its bucket, shaped as the parameter
  std::vector<size_t> find_unused(const std::vector<Tensor>& outputs) const;

  std::vector<Tensor> params_;
  std::vector<std::vector<size_t>> buckets_;
  std::vector<Tensor> flat_;
  std::vector<Slot> slots_;
  LaunchFn launch_;
  UsageSumFn usage_sum_;
  ReducerOptions options_;
  std::vector<int> hook_ids_;
  std::shared_ptr<char> alive_ = std::make_shared<char>(0);  // queued callbacks check it

  // The armed iteration's state.
  bool armed_ = false, finalize_queued_ = false, unused_marked_ = false, unused_known_ = false;
  std::vector<char> ready_, used_here_;
  std::vector<size_t> pending_;  // per bucket: gradients still missing
  std::vector<size_t> unused_;
  std::vector<size_t> arrival_;      // this iteration's gradients, in the order they arrived
  std::vector<size_t> ready_order_;  // the last finished iteration's (ready_order())
  size_t next_bucket_ = 0;
  std::vector<std::function<Tensor()>> waits_;
};

}  // namespace ember::ddp
