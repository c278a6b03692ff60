// 2-D convolution on channels_last (NHWC) tensors, natively: in NHWC an output row's positions times
// the kernel's taps times the channels is a matrix product straight from the input's memory
// (implicit GEMM), so no column matrix and no transposes around an NCHW kernel.
//   forward:       y[n, oh, :, :] += xpad[n, oh*s + kh*d, kw*d + ow*s, :] (OW x C) @ W[kh, kw] (C x O)
//   transposed:    stride 1: the forward of the padded input with the flipped, transposed kernel;
//                  else scattered: xpad[n, oh*s + kh*d, ow*s + kw*d, :] += y row @ W[kh, kw]^T
//   weight grad:   dW[kh, kw] += xpad rows^T @ dy rows
// float32 runs on sgemm_unpacked's register kernels (kw and channels as one sum when dilation is 1
// and groups 1); float64 on OpenBLAS; float16/bfloat16 compute in float32.
#pragma once
#include "kernels/cpu/conv_cols.h"

namespace ember::conv::nhwc {

// Whether a convolution with these operands runs here: a 2-D one (weight of 4 dims) whose input or
// weight is channels_last by PyTorch's suggest_memory_format (its rule for choosing NHWC).
bool wanted(const Tensor& input, const Tensor& weight);

// The convolution (or its transposed form) of plan p, bias optional; the result is channels_last.
// out_sizes: the result's (N, C, H, W).
Tensor convolution(const Plan& p, const Tensor& input, const Tensor& weight, const Tensor& bias, bool transposed,
                   const DimVec& out_sizes);

// The weight's gradient, laid out channels_last when `channels_last_weight`, else contiguous.
Tensor weight_grad(const Plan& p, const Tensor& grad_output, const Tensor& input, const DimVec& weight_sizes,
                   bool channels_last_weight);

}  // namespace ember::conv::nhwc
