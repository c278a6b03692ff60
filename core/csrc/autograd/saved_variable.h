// A tensor a node keeps for its backward. It remembers the storage version at save time, so an
// in-place change before backward is caught, and is freed when the graph runs without retain_graph.
#pragma once
#include <memory>

#include "autograd/node.h"

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
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool saved_ = false, was_output_ = false, released_ = false;
};

}  // namespace ember::autograd
