// Node bookkeeping: sequence numbers, input metadata, tensor hooks.
#include "autograd/node.h"

#include <atomic>

#include "base/error.h"

namespace ember::autograd {

namespace {
std::atomic<uint64_t> next_sequence_nr{0};
std::atomic<int> hook_ids{0};
}  // namespace

Node::Node() : sequence_nr(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

int next_hook_id() { return hook_ids.fetch_add(1) + 1; }

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_meta.push_back(InputMeta{t.sizes(), t.dtype(), t.device()});
  return uint32_t(input_meta.size() - 1);
}

void Node::run_tensor_hooks(variable_list& grads) {
  for (size_t i = 0; i < tensor_hooks.size(); i++) {  // hooks may add hooks: index, not iterator
    TensorHook h = tensor_hooks[i];
    if (h.output_nr >= grads.size() || !grads[h.output_nr].defined()) continue;
    Tensor r = h.fn(grads[h.output_nr]);
    if (r.defined()) grads[h.output_nr] = r;
  }
}

variable_list NotImplementedBackward::apply(variable_list&&) {
  EMBER_CHECK(!why_.empty(), NotImplemented, "the derivative for '", op_, "' is not implemented");
  EMBER_FAIL(Runtime, "'", op_, "' is not differentiable: ", why_);
}

}  // namespace ember::autograd
