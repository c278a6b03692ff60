// The passes behind ember.jit.freeze and optimize_for_inference: graph inputs made constants, ops on
// constants evaluated once, tuple construct/unpack pairs removed, batch norm folded into the convolution
// before it.
#pragma once
#include <vector>

#include "jit/ir.h"

namespace ember::jit {

// The top block's parameters at `indices` become constants of `values` (in the same order).
void freeze_params(Graph& g, const std::vector<int>& indices, const std::vector<RValue>& values);
// Pure op nodes whose inputs are all constants are run once and become constants; returns whether any did.
bool fold_constant_ops(Graph& g);
// TupleUnpack of a TupleConstruct reads the construct's inputs directly.
bool simplify_tuples(Graph& g);
// native_batch_norm (inference: training a constant false) of a convolution whose weight, bias and the
// norm's statistics and affine parameters are constants: the convolution's weight and bias are rescaled
// and the norm dropped. Returns the number folded.
int fold_conv_batchnorm(Graph& g);

}  // namespace ember::jit
