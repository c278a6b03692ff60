// The bfloat16 batched product on AVX512_BF16 behind gemm_batched (matmul_bf16.cpp).
#pragma once
#include "tensor/factory.h"

namespace ember::detail {

// out[i] = beta * out[i] + alpha * a[i] @ b[i] for bfloat16 tensors of any strides, through
// bf16gemm (gemm_bf16.h); false (nothing done) when that path is unavailable.
bool gemm_bf16_batched(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha);

}  // namespace ember::detail
