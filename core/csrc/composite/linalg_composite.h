// What the composite linalg files (linalg_composite_*.cpp) share: their recorded building blocks.
#pragma once
#include <optional>
#include <string>

#include "tensor/tensor_impl.h"
#include "types/scalar.h"

namespace ember::ad {

// The conjugate transpose of the last two dims (the transpose for real tensors).
Tensor mH(const Tensor& A);
// Checks that A is a (batch of) square matrices, naming `fn` (e.g. "linalg.matrix_power").
void check_square(const Tensor& A, const char* fn);
// Checks a floating-point or complex dtype, naming `fn`.
void check_float_or_complex(const Tensor& A, const char* fn);
// The singular values of the matrices on A's last two dims, largest first (over linalg.svdvals).
Tensor singular_values(const Tensor& A, const char* fn);
// A's inverse (over linalg.inv), for matrix_power with n < 0.
Tensor inverse(const Tensor& A, const char* fn);
Tensor vector_norm_impl(const Tensor& x, const Scalar& ord, const std::optional<DimVec>& dim, bool keepdim,
                        ScalarType dtype);
Tensor matrix_norm_str_impl(const Tensor& A, const std::string& ord, const DimVec& dim, bool keepdim, ScalarType dtype);
Tensor matrix_norm_ord_impl(const Tensor& A, const Scalar& ord, const DimVec& dim, bool keepdim, ScalarType dtype);

}  // namespace ember::ad
