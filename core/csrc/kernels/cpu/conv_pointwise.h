// Pointwise convolution (every kernel dim 1, stride 1, no padding; NCHW-style contiguous, float32/float64)
// as one product per (image, group) read straight from the input: out_n[g] = W[g] (O/g x C/g) @ x_n[g]
// (C/g x L). conv.cpp's column path copies x_n[g] into a column matrix first (im2col of a 1x1 kernel is
// the identity), a pass over the input that costs as much as the product when O/g is small (MobileNet's
// projections to 24 or 40 channels); wide planes only, as small ones are chunked across images there.
#pragma once
#include "kernels/cpu/conv_cols.h"

namespace ember::conv::pointwise {

// Whether the direct product takes this forward (not transposed) convolution of these operands.
bool serves(const Plan& p, const Tensor& input, bool transposed);
// out (allocated by the caller, contiguous, input's dtype) = the convolution (plus bias when defined).
void forward(const Plan& p, const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out);

}  // namespace ember::conv::pointwise
