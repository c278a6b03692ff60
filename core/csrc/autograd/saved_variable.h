// A tensor a node keeps for its backward. It remembers the storage version at save time, so an
// in-place change before backward is caught, and is freed when the graph runs without retain_graph.
#pragma once
#include <memory>

#include "autograd/node.h"
#include "autograd/view_nodes.h"

namespace ember::autograd {

struct ForwardGrad;

class SavedVariable {
 public:
  SavedVariable() = default;
  // An op's own output is kept without its history (which would be a cycle through the node) and
  // given it back on unpack.
  SavedVariable(const Tensor& t, bool is_output);
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void reset();

 private:
  Tensor data_;
  std::shared_ptr<ForwardGrad> fw_;  // a saved output's tangent slot (set after it is saved)
  // An in-place op's output that is a view (recorded through CopySlices): its history on unpack is a view of
  // the base after the op, not the op's own node (whose first edge is CopySlices' sentinel). This is the view's
  // grad_fn at save time, its edge to CopySlices held weakly (a strong one would be a cycle through the node).
  Geometry view_base_, view_;
  std::weak_ptr<Node> view_base_fn_;
  uint32_t view_base_nr_ = 0;
  bool inplace_on_view_ = false;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool saved_ = false, was_output_ = false, released_ = false;
};

}  // namespace ember::autograd
