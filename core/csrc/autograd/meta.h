// What autograd keeps on a tensor, and the queries every recorded op makes: does it require grad,
// which edge does its gradient flow into, and how a new output joins the graph.
#pragma once
#include <memory>

#include "autograd/node.h"

namespace ember::autograd {

// A tangent, valid while the forward AD level it was set at is live.
struct ForwardGrad {
  Tensor tangent;
  uint64_t level = 0;
};

struct AutogradMeta final : AutogradMetaInterface {
  ~AutogradMeta() override;
  bool requires_grad = false;  // leaves only; non-leaves require grad through grad_fn
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  std::weak_ptr<Node> grad_accumulator;
  uint32_t output_nr = 0;
  bool retains_grad = false;
  std::vector<std::pair<int, GradHook>> leaf_hooks;  // run before accumulation
  std::vector<std::pair<int, std::function<void(const Tensor&)>>> post_accumulate_hooks;
  // Views: the tensor whose storage this one views (never itself a view), and the storage version
  // at which grad_fn was last set; a newer version means the base changed in place and grad_fn
  // must be rebuilt from the base's.
  Tensor base;
  uint32_t attr_version = 0;
  TensorImpl* owner = nullptr;
  // Forward-mode AD: the tangent (forward_ad.h), shared with the aliases a saved output unpacks to.
  std::shared_ptr<ForwardGrad> fw;
};

inline AutogradMeta* meta(const Tensor& t) {
  return t.defined() ? static_cast<AutogradMeta*>(t.impl()->autograd.get()) : nullptr;
}
AutogradMeta& materialize_meta(const Tensor& t);

std::shared_ptr<Node> grad_fn(const Tensor& t);  // rebuilt for views whose base changed in place
inline bool requires_grad(const Tensor& t) {
  AutogradMeta* m = meta(t);
  return m && (m->requires_grad || m->grad_fn || (m->base.defined() && grad_fn(t)));
}
inline bool is_leaf(const Tensor& t) { return !grad_fn(t); }
bool is_view(const Tensor& t);
// Where t's gradient goes: its grad_fn at output_nr, or its leaf's gradient accumulator.
Edge gradient_edge(const Tensor& t);
std::shared_ptr<Node> grad_accumulator(const Tensor& t);

// Makes t (a fresh op output) an output of fn.
void set_history(const Tensor& t, const std::shared_ptr<Node>& fn);
// Records that `view` (an op output) shares `input`'s storage.
void mark_view(const Tensor& view, const Tensor& input);
// Marks the end of an in-place op on t recorded as fn: fn becomes t's history (through the base
// when t is a view, see copy_slices.h).
void rebase_history(const Tensor& t, const std::shared_ptr<Node>& fn);
// Raises when an in-place op on t would break the graph (a leaf that requires grad, or a view of one).
void check_inplace(const Tensor& t, bool records);

void set_requires_grad(const Tensor& t, bool on);
Tensor alias(const Tensor& t);  // a new handle on t's data with no autograd state (detach)
uint32_t current_version(const Tensor& t);

}  // namespace ember::autograd
