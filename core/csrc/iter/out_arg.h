// out= for ops that compute into a fresh tensor first: PyTorch's checks on the caller's out tensor,
// its resize to the result's shape, and the copy. One place, so every such op words errors alike.
#pragma once
#include "tensor/tensor_impl.h"

namespace ember {

// Raises RuntimeError "<op>(): Expected out tensor to have dtype X, but got Y instead".
void check_out_dtype(const Tensor& out, ScalarType want, const char* op);
// result itself when out is undefined; else out, checked, resized and filled with result.
Tensor write_out(const Tensor& out, const Tensor& result, const char* op);

}  // namespace ember
