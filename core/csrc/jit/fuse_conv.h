// optimize_for_inference's convolution fusions: relu(conv), conv + other and relu(conv + other) in a
// graph's blocks become one aten::_conv_add_relu (core/ops/fused.yaml), whose kernel applies the add and
// the relu to the convolution's output as its epilogue.
#pragma once

#include "jit/ir.h"

namespace ember::jit {

// Rewrites each pattern whose convolution is not transposed, whose intermediate results are read by the
// pattern alone and whose add has alpha 1 (add or add_, relu or relu_); returns the number of
// convolutions fused. The replaced nodes are removed.
int fuse_conv_add_relu(Graph& g);

}  // namespace ember::jit
