#include "ddp/reducer.h"

#include <atomic>
#include <sstream>
#include <unordered_set>

#include "autograd/accumulate_grad.h"
#include "autograd/engine_callbacks.h"
#include "autograd/grad_mode.h"
#include "autograd/meta.h"
#include "base/error.h"
#include "generated/ops/clone.h"
#include "iter/copy.h"
#include "tensor/factory.h"

namespace ember::ddp {

namespace {

// Hook ids below zero belong to C++ owners, so they never meet the Python layer's (counting up from 1).
int next_cpp_hook_id() {
  static std::atomic<int> next{-1};
  return next.fetch_sub(1);
}

std::string index_list(const std::vector<size_t>& idx) {
  std::ostringstream s;
  for (size_t k = 0; k < idx.size(); k++) s << (k ? " " : "") << idx[k];
  return s.str();
}

}  // namespace

Reducer::Reducer(std::vector<Tensor> params, std::vector<std::vector<size_t>> buckets, LaunchFn launch,
                 UsageSumFn usage_sum, ReducerOptions options)
    : params_(std::move(params)),
      buckets_(std::move(buckets)),
      launch_(std::move(launch)),
      usage_sum_(std::move(usage_sum)),
      options_(options) {
  const size_t n = params_.size();
  slots_.assign(n, Slot{SIZE_MAX, 0, 0});
  for (size_t b = 0; b < buckets_.size(); b++) {
    EMBER_CHECK(!buckets_[b].empty(), Value, "DDP reducer: bucket ", b, " is empty");
    int64_t size = 0;
    ScalarType dtype = params_[buckets_[b][0]].dtype();
    for (size_t i : buckets_[b]) {
      EMBER_CHECK(i < n, Index, "DDP reducer: bucket ", b, " names parameter ", i, " of ", n);
      EMBER_CHECK(slots_[i].bucket == SIZE_MAX, Value, "DDP reducer: parameter ", i, " is in two buckets");
      EMBER_CHECK(params_[i].dtype() == dtype, Value, "DDP reducer: bucket ", b, " mixes dtypes");
      slots_[i] = Slot{b, size, params_[i].numel()};
      size += params_[i].numel();
    }
    Tensor flat = empty({size}, dtype, params_[buckets_[b][0]].device());
    fill_(flat, Scalar(int64_t(0)));
    flat_.push_back(flat);
  }
  for (size_t i = 0; i < n; i++) {
    EMBER_CHECK(slots_[i].bucket != SIZE_MAX, Value, "DDP reducer: parameter ", i, " is in no bucket");
    EMBER_CHECK(autograd::requires_grad(params_[i]) && autograd::is_leaf(params_[i]), Value, "DDP reducer: parameter ",
                i, " is not a leaf that requires grad");
  }
  if (options_.gradient_as_bucket_view) {
    // .grad becomes the bucket's view (an existing gradient's values move into it), so accumulation
    // writes straight into the buffer that is reduced.
    for (size_t i = 0; i < n; i++) {
      autograd::AutogradMeta& m = autograd::materialize_meta(params_[i]);
      Tensor view = slice(i);
      if (m.grad.defined()) copy_(view, m.grad);
      m.grad = view;
    }
  }
  for (size_t i = 0; i < n; i++) {
    int id = next_cpp_hook_id();
    hook_ids_.push_back(id);
    autograd::materialize_meta(params_[i]).post_accumulate_hooks.push_back({id, [this, i](const Tensor&) {
                                                                              on_gradient(i);
                                                                            }});
  }
}

Reducer::~Reducer() {
  for (size_t i = 0; i < params_.size(); i++) {
    autograd::AutogradMeta* m = autograd::meta(params_[i]);
    if (!m) continue;
    auto& hooks = m->post_accumulate_hooks;
    for (size_t k = 0; k < hooks.size(); k++)
      if (hooks[k].first == hook_ids_[i]) hooks.erase(hooks.begin() + k--);
  }
}

Tensor Reducer::slice(size_t i) const {
  const Slot& s = slots_[i];
  const Tensor& p = params_[i];
  return make_view(flat_[s.bucket], p.sizes(), contiguous_strides(p.sizes()), flat_[s.bucket].offset() + s.offset);
}

std::vector<size_t> Reducer::find_unused(const std::vector<Tensor>& outputs) const {
  // Every AccumulateGrad reachable from the outputs' graph is a parameter backward will reach.
  std::unordered_set<autograd::Node*> seen;
  std::unordered_set<TensorImpl*> reached;
  std::vector<autograd::Node*> stack;
  for (const Tensor& t : outputs) {
    if (!t.defined() || !autograd::requires_grad(t)) continue;
    autograd::Edge e = autograd::gradient_edge(t);
    if (e.valid() && seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  }
  while (!stack.empty()) {
    autograd::Node* node = stack.back();
    stack.pop_back();
    if (node->is_accumulate_grad()) reached.insert(static_cast<autograd::AccumulateGrad*>(node)->variable.impl());
    for (const autograd::Edge& e : node->next_edges)
      if (e.valid() && seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  }
  std::vector<size_t> unused;
  for (size_t i = 0; i < params_.size(); i++)
    if (!reached.count(params_[i].impl())) unused.push_back(i);
  return unused;
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  if (armed_) {
    std::vector<size_t> missing;
    for (size_t i = 0; i < params_.size(); i++)
      if (!ready_[i]) missing.push_back(i);
    armed_ = false;
    EMBER_FAIL(Runtime,
               "Expected to have finished reduction in the prior iteration before starting a new one. This error "
               "indicates that your module has parameters that were not used in producing loss. You can enable "
               "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
               "`ember.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
               "participate in calculating loss. If you already have done the above, then the distributed data "
               "parallel module wasn't able to locate the output tensors in the return value of your module's "
               "`forward` function. Parameter indices which did not receive grad for rank ",
               options_.rank, ": ", index_list(missing));
  }
  const size_t n = params_.size();
  ready_.assign(n, 0);
  used_here_.assign(n, 0);
  pending_.clear();
  for (const auto& b : buckets_) pending_.push_back(b.size());
  waits_.clear();
  arrival_.clear();
  next_bucket_ = 0;
  finalize_queued_ = unused_marked_ = false;
  if (options_.find_unused_parameters || options_.static_graph) {
    if (!(options_.static_graph && unused_known_)) unused_ = find_unused(outputs);
    unused_known_ = true;
  } else {
    unused_.clear();
  }
  armed_ = true;
}

void Reducer::on_gradient(size_t i) {
  if (!armed_) return;  // a backward DDP did not arm: no_sync, or outside DDP's forward
  if (!finalize_queued_) {
    finalize_queued_ = true;
    std::weak_ptr<char> alive = alive_;
    autograd::queue_callback([this, alive] {
      if (alive.lock()) finalize();
    });
  }
  if (!unused_marked_) {
    unused_marked_ = true;
    for (size_t u : unused_) mark_ready(u);
  }
  EMBER_CHECK(!ready_[i], Runtime,
              "Expected to mark a variable ready only once. This error is caused by one of the following reasons: "
              "1) Use of a module parameter outside the `forward` function. 2) Reused parameters in multiple "
              "reentrant backward passes. 3) Incorrect unused parameter detection. Parameter at index ",
              i, " has been marked as ready twice.");
  used_here_[i] = 1;
  arrival_.push_back(i);
  mark_ready(i);
}

void Reducer::mark_ready(size_t i) {
  if (ready_[i]) return;
  ready_[i] = 1;
  autograd::NoGradGuard no_grad;
  const Tensor& grad = autograd::meta(params_[i]) ? autograd::meta(params_[i])->grad : Tensor();
  Tensor view = slice(i);
  if (!grad.defined())
    fill_(view, Scalar(int64_t(0)));
  else if (!(grad.storage().get() == view.storage().get() && grad.offset() == view.offset()))
    copy_(view, grad);
  if (--pending_[slots_[i].bucket] == 0) launch_ready_buckets();
}

void Reducer::launch_ready_buckets() {
  while (next_bucket_ < buckets_.size() && pending_[next_bucket_] == 0) {
    waits_.push_back(launch_(next_bucket_, flat_[next_bucket_]));
    next_bucket_++;
  }
}

void Reducer::finalize() {
  if (!armed_ || next_bucket_ < buckets_.size()) return;  // incomplete: the next prepare_for_backward raises
  armed_ = false;
  ready_order_ = arrival_;
  for (size_t i = 0; i < params_.size(); i++)
    if (!used_here_[i]) ready_order_.push_back(i);
  autograd::NoGradGuard no_grad;
  for (size_t b = 0; b < buckets_.size(); b++) {
    Tensor reduced = waits_[b]();
    if (reduced.defined() && !reduced.is_same(flat_[b])) {
      EMBER_CHECK(reduced.numel() == flat_[b].numel(), Runtime, "DDP: the comm hook's result for bucket ", b, " has ",
                  reduced.numel(), " elements, expected ", flat_[b].numel());
      copy_(flat_[b], reduced);
    }
  }
  waits_.clear();
  std::vector<char> globally_unused(params_.size(), 0);
  if (options_.find_unused_parameters || options_.static_graph) {
    Tensor used = empty({int64_t(params_.size())}, ScalarType::Int32);
    for (size_t i = 0; i < params_.size(); i++) used.data_as<int32_t>()[i] = used_here_[i];
    Tensor total = usage_sum_(used);
    for (size_t i = 0; i < params_.size(); i++) globally_unused[i] = total.data_as<int32_t>()[i] == 0;
  }
  for (size_t i = 0; i < params_.size(); i++) {
    if (globally_unused[i]) continue;  // no rank produced a gradient: .grad stays as it was
    autograd::AutogradMeta& m = autograd::materialize_meta(params_[i]);
    Tensor view = slice(i);
    if (options_.gradient_as_bucket_view) {
      if (!(m.grad.defined() && m.grad.storage().get() == view.storage().get() && m.grad.offset() == view.offset()))
        m.grad = view;
    } else if (!m.grad.defined()) {
      m.grad = ops::clone(view);
    } else {
      copy_(m.grad, view);
    }
  }
}

void Reducer::reduce_zero_buckets() {
  EMBER_CHECK(!armed_, Runtime, "DDP reducer: a join shadow step while a backward's reduction is pending");
  autograd::NoGradGuard no_grad;
  std::vector<std::function<Tensor()>> waits;
  for (size_t b = 0; b < buckets_.size(); b++) {
    fill_(flat_[b], Scalar(int64_t(0)));
    waits.push_back(launch_(b, flat_[b]));
  }
  for (auto& w : waits) w();
  if (options_.find_unused_parameters || options_.static_graph) {
    Tensor used = empty({int64_t(params_.size())}, ScalarType::Int32);
    fill_(used, Scalar(int64_t(0)));
    usage_sum_(used);
  }
}

}  // namespace ember::ddp
