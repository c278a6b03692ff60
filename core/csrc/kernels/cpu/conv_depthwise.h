// Depthwise convolution (groups == in channels == out channels, 2-D, NCHW, float32/float64) as a direct
// stencil (conv_depthwise.cpp): each output plane is the sum of K x K shifted, scaled rows of its one input
// plane. conv.cpp's im2col + gemm path spends most of its time building a K*K-row column matrix for a
// 1 x K*K product per plane; MobileNet's 3x3/5x5 depthwise layers took half of its inference time there.
#pragma once
#include "kernels/cpu/conv_cols.h"

namespace ember::conv::depthwise {

// Whether the direct path takes this forward (not transposed) convolution of these operands.
bool serves(const Plan& p, const Tensor& input, const Tensor& weight, bool transposed);
// out (allocated by the caller, contiguous, input's dtype) = the convolution (plus bias when defined).
void forward(const Plan& p, const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out);

}  // namespace ember::conv::depthwise
