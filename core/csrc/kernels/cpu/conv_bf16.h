// bfloat16 convolution on the AVX512_BF16 product (conv_bf16.cpp): the column matrices of conv.cpp
// in bfloat16, multiplied by bf16gemm, float32 sums rounded once to bfloat16.
#pragma once
#include "kernels/cpu/conv_cols.h"

namespace ember::conv::bf16 {

// out (allocated by the caller) = the convolution of bf16 input and weight (plus bias, any float
// dtype, or undefined), forward or transposed as conv.cpp's Plan says. False (nothing written) when
// the AVX512_BF16 path is unavailable.
bool convolution(const Plan& p, const Tensor& input, const Tensor& weight, const Tensor& bias, bool transposed,
                 const Tensor& out);
// out (the weight's sizes) = the weight gradient from grad_output and input; false as above.
bool weight_grad(const Plan& p, const Tensor& grad_output, const Tensor& input, const Tensor& out);

}  // namespace ember::conv::bf16
