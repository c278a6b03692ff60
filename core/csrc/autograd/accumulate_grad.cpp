// AccumulateGrad: the first gradient is kept (copied when it may alias other memory), later ones
// are added; with create_graph the sum is recorded so .grad can itself be differentiated.
#include "autograd/accumulate_grad.h"

#include <limits>

#include "autograd/grad_mode.h"
#include "autograd/meta.h"
#include "generated/ops.h"

namespace ember::autograd {

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
    // Stolen when nothing else holds it and it is dense; else copied (it may be an expanded
    // view, or a tensor the caller passed in).
    bool steal = g.impl_ptr().use_count() == 1 && g.is_contiguous() && !meta(g);
    m.grad = steal ? g : ops::clone(g);
  } else if (requires_grad(m.grad)) {
    m.grad = ops::add(m.grad, g, Scalar(int64_t(1)));
  } else {
    ops::add_(m.grad, g, Scalar(int64_t(1)));
  }
  for (size_t i = 0; i < m.post_accumulate_hooks.size(); i++) m.post_accumulate_hooks[i].second(variable);
  return {};
}

}  // namespace ember::autograd
