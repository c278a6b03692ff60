// optimize_for_inference's convolution fusions: relu(conv), conv + other and relu(conv + other) in a
// graph's blocks become one aten::_conv_add_relu (core/ops/fused.yaml), whose kernel applies the add and
// the relu to the convolution's output as its epilogue.
#pragma once

#include "jit/ir.h"

namespace ember::jit {

// Rewrites each pattern whose convolution (aten::convolution or scripted code's aten::_conv_nd) is not
// transposed, whose intermediate results are read by the pattern alone (readers of the shape aside) and whose
// add has alpha 1 (add or add_, relu or relu_); returns the number of convolutions fused. An add_ into a
// convolution's fresh output (scripted `out += conv(x)`) fuses the other convolution. The replaced nodes are
// removed.
int fuse_conv_add_relu(Graph& g);

}  // namespace ember::jit
