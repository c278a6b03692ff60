// Backward helpers of the special functions (core/ops/special.yaml), written with recorded ops.
#pragma once
#include <cstdint>

#include "tensor/factory.h"

namespace ember::ad {

// d mvlgamma(x, p) / dx = sum_{j<p} digamma(x - j/2), times grad.
Tensor mvlgamma_backward(const Tensor& grad, const Tensor& input, int64_t p);

}  // namespace ember::ad
