// IndexBackward and IndexPutBackward: each one's gradient is built from the other, so gradients of
// gradients work through indexing too.
#include "autograd/indexing.h"

#include "autograd/formulas.h"
#include "kernels/cpu/index_advanced.h"

namespace ember::ad {

namespace {

struct IndexBackward final : Node {
  std::vector<Tensor> indices;  // integer tensors: never differentiated, never written
  DimVec sizes;
  std::string name() const override { return "IndexBackward0"; }
  variable_list apply(variable_list&& grads) override {
    Tensor z = zeros_sized(sizes, grads[0]);
    ad::advanced_index_put_(z, indices, grads[0], true);
    return {z};
  }
};

struct IndexPutBackward final : Node {
  std::vector<Tensor> indices;
  bool accumulate = false;
  std::string name() const override { return "IndexPutBackward0"; }
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    variable_list out(2);
    if (needs_input_grad(0)) {
      if (accumulate) {
        out[0] = g;
      } else {
        out[0] = clone(g);
        ad::advanced_index_put_(out[0], indices, zeros_sized({}, g), false);
      }
    }
    if (needs_input_grad(1)) out[1] = ad::advanced_index(g, indices);
    return out;
  }
};

}  // namespace

Tensor advanced_index(const Tensor& self, const std::vector<Tensor>& indices, const DimVec* labels) {
  if (forward::any_tangent({self})) {
    auto op = [&](const variable_list& p) { return variable_list{ad::advanced_index(p[0], indices, labels)}; };
    return forward::propagate({self}, op, false)[0];
  }
  if (!GradMode::is_enabled() || !requires_grad(self)) return ::ember::advanced_index(self, indices, labels);
  auto node = std::make_shared<IndexBackward>();
  node->next_edges.push_back(gradient_edge(self));
  record_anomaly(*node);
  node->indices = indices;
  node->sizes = self.sizes();
  Tensor result = ::ember::advanced_index(self, indices, labels);
  set_history(result, node);
  return result;
}

void advanced_index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate,
                         const DimVec* labels) {
  if (forward::any_tangent({self, values})) {
    auto op = [&](const variable_list& p) {
      ad::advanced_index_put_(p[0], indices, p[1], accumulate, labels);
      return variable_list{p[0]};
    };
    forward::propagate({self, values}, op, true);
    return;
  }
  const bool records = GradMode::is_enabled() && (requires_grad(self) || requires_grad(values));
  check_inplace(self, records);
  if (!records) return ::ember::advanced_index_put_(self, indices, values, accumulate, labels);
  auto node = std::make_shared<IndexPutBackward>();
  node->next_edges = {gradient_edge(self), gradient_edge(values)};
  record_anomaly(*node);
  node->indices = indices;
  node->accumulate = accumulate;
  ::ember::advanced_index_put_(self, indices, values, accumulate, labels);
  rebase_history(self, node);
}

}  // namespace ember::ad
