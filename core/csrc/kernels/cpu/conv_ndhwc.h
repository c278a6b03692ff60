// 3-D convolution on channels_last_3d (NDHWC) tensors, natively: conv_nhwc.h's implicit GEMM with one
// more spatial dim. An output row (n, od, oh) is its OW positions times the channels, so
//   forward:     y[n, od, oh, :, :] += xpad[n, od*s + kd*d, oh*s + kh*d, kw*d + ow*s, :] (OW x C) @ W[kd, kh, kw]
//   transposed:  stride 1: the forward of the padded input with the flipped, transposed kernel;
//                else scattered image by image: xpad[n, od*s + kd*d, oh*s + kh*d, ow*s + kw*d, :] += y row @ W^T
//   weight grad: dW[kd, kh, kw] += xpad rows^T @ dy rows
// with no column matrix and no transposes around an NCDHW kernel; results are channels_last_3d.
// float32 runs on sgemm_unpacked's register kernels, float64 on OpenBLAS, float16/bfloat16 in float32.
#pragma once
#include "kernels/cpu/conv_cols.h"

namespace ember::conv::ndhwc {

// Whether a convolution with these operands runs here: a 3-D one (weight of 5 dims) whose input or
// weight is channels_last_3d by PyTorch's suggest_memory_format (its rule for choosing NDHWC).
bool wanted(const Tensor& input, const Tensor& weight);

// The convolution (or its transposed form) of plan p, bias optional; the result is channels_last_3d.
// out_sizes: the result's (N, C, D, H, W).
Tensor convolution(const Plan& p, const Tensor& input, const Tensor& weight, const Tensor& bias, bool transposed,
                   const DimVec& out_sizes);

// The weight's gradient, laid out channels_last_3d when `channels_last_weight`, else contiguous.
Tensor weight_grad(const Plan& p, const Tensor& grad_output, const Tensor& input, const DimVec& weight_sizes,
                   bool channels_last_weight);

}  // namespace ember::conv::ndhwc
