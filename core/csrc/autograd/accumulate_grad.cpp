// AccumulateGrad: the first gradient is kept (copied when it may alias other memory), later ones
// are added; with create_graph the sum is recorded so .grad can itself be differentiated.
#include "autograd/accumulate_grad.h"

#include <limits>

#include "autograd/grad_mode.h"
#include "autograd/meta.h"
#include "generated/ops.h"
#include "iter/copy.h"
#include "tensor/mem_overlap.h"

namespace ember::autograd {

namespace {

// PyTorch's layout contract for .grad: a non-overlapping and dense leaf's gradient has the leaf's strides
// (size-1 dims aside), so a channels_last parameter gets a channels_last .grad; other leaves' is contiguous.
bool obeys_layout_contract(const Tensor& g, const Tensor& v) {
  if (!is_non_overlapping_and_dense(v)) return g.is_contiguous();
  for (int64_t d = 0; d < v.dim(); d++)
    if (v.sizes()[d] != 1 && g.strides()[d] != v.strides()[d]) return false;
  return true;
}

Tensor clone_obey_contract(const Tensor& g, const Tensor& v) {
  if (g.is_meta()) return ops::clone(g);
  if (!is_non_overlapping_and_dense(v)) return contiguous_copy(g);
  Tensor out = empty_strided(v.sizes(), v.strides(), g.dtype(), g.device());
  copy_(out, g);
  return out;
}

}  // namespace

AccumulateGrad::AccumulateGrad(Tensor v) : variable(std::move(v)) {
  sequence_nr = std::numeric_limits<uint64_t>::max();  // run as soon as ready
  add_input_metadata(variable);
}

void AccumulateGrad::run_tensor_hooks(variable_list& grads) {
  AutogradMeta* m = meta(variable);
  if (!m || grads.empty() || !grads[0].defined()) return;
  for (size_t i = 0; i < m->leaf_hooks.size(); i++) {
    GradHook h = m->leaf_hooks[i].second;
    Tensor r = h(grads[0]);
    if (r.defined()) grads[0] = r;
  }
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  AutogradMeta& m = materialize_meta(variable);
  if (GradMode::is_enabled()) {  // create_graph: keep the history of the gradient
    m.grad = m.grad.defined() ? ad::add(m.grad, g, Scalar(int64_t(1))) : g;
  } else if (!m.grad.defined()) {
    // Stolen when nothing else holds it and it has the layout .grad must have; else copied into that
    // layout (it may be an expanded view, a tensor the caller passed in, or in another memory format).
    bool steal = g.impl_ptr().use_count() == 1 && obeys_layout_contract(g, variable) && !meta(g);
    m.grad = steal ? g : clone_obey_contract(g, variable);
  } else if (requires_grad(m.grad)) {
    m.grad = ops::add(m.grad, g, Scalar(int64_t(1)));
  } else {
    ops::add_(m.grad, g, Scalar(int64_t(1)));
  }
  for (size_t i = 0; i < m.post_accumulate_hooks.size(); i++) m.post_accumulate_hooks[i].second(variable);
  return {};
}

}  // namespace ember::autograd
