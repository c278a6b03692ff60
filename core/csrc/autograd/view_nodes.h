// Autograd through views that are written in place. A view's gradient with respect to its base is
// a scatter of the view's geometry (sizes, strides, offset) into the base's; CopySlices records an
// in-place op on a view as an op on the whole base, so the base's history stays right.
#pragma once
#include "autograd/node.h"

namespace ember::autograd {

struct Geometry {
  DimVec sizes, strides;
  int64_t offset = 0;
  static Geometry of(const Tensor& t) { return {t.sizes(), t.strides(), t.offset()}; }
};

// d(view)/d(base): grad (shaped as the view) scattered into zeros shaped as the base, adding where
// the view repeats elements. Built of differentiable ops, so it has a gradient itself.
Tensor view_grad_to_base(const Tensor& grad, const Geometry& base, const Geometry& view);

// The grad_fn of a view rebuilt after its base changed in place: its gradient goes to the base.
struct ViewBackward final : Node {
  Geometry base, view;
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AsStridedBackward0"; }
};

// An in-place op `fn` on a view, seen from the base: the base's gradient outside the view passes
// through; inside it, fn's gradient for its first input applies.
struct CopySlices final : Node {
  Geometry base, view;
  std::shared_ptr<Node> fn;
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "CopySlices"; }
  void release_variables() override { fn->release_variables(); }
};

}  // namespace ember::autograd
