// The node at a leaf: adds the incoming gradient into the leaf's .grad.
#pragma once
#include "autograd/node.h"

namespace ember::autograd {

struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor variable);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  void run_tensor_hooks(variable_list& grads) override;  // the leaf's own hooks
  bool is_accumulate_grad() const override { return true; }
  Tensor variable;
};

}  // namespace ember::autograd
