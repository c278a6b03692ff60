// Matrix-product building blocks shared by the matmul, product and einsum ops: batched gemm, gemv
// and dot on tensors of any strides (OpenBLAS for float/double/complex, float32 for the 16-bit
// floats, our own loop for integers), plus the argument checks and messages they share.
#pragma once
#include <initializer_list>

#include "iter/out_arg.h"
#include "tensor/factory.h"

namespace ember {

// out[i] = beta * out[i] + alpha * a[i] @ b[i] over the leading (batch) dims, which out, a and b
// share (any strides, 0 for broadcast); the last two dims are (m, n), (m, k), (k, n). One dtype
// throughout. beta == 0 overwrites out (its NaNs ignored). out must not overlap a or b.
void gemm_batched(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha);
// y = beta * y + alpha * A x for A (m, k), x (k), y (m) of one dtype; y must not overlap A or x.
void gemv_into(const Tensor& y, const Tensor& a, const Tensor& x, const Scalar& beta, const Scalar& alpha);
// The 0-dim tensor sum_i conj?(x_i) y_i of two 1-D tensors of one dtype, written into out (0-dim).
void dot_into(const Tensor& out, const Tensor& x, const Tensor& y, bool conj_x);

// PyTorch's names in its matmul messages: C++ type names ("float", "long int") and ScalarType
// names ("Float", "Long").
const char* cpp_type_name(ScalarType t);
const char* scalar_type_name(ScalarType t);
// "expected <na> and <nb> to have the same dtype, but got: float != double"
void check_same_dtype(const Tensor& a, const Tensor& b, const char* na, const char* nb);
void check_same_device(const Tensor& a, const Tensor& b);
// Raises for dtypes the products do not support (bool), naming the op.
void check_product_dtype(ScalarType t, const char* op);
// Integer tensors take integer alpha/beta only, as in PyTorch.
void check_alpha_beta(ScalarType t, const Scalar& beta, const Scalar& alpha);

// The tensor an op writes its result of `sizes` into: `out` checked (dtype, device) and resized
// when it may be written directly, else a new tensor (out undefined, or out overlapping an input);
// finish_out copies such a result into out.
Tensor product_out_target(const Tensor& out, const DimVec& sizes, ScalarType dtype, Device device,
                          std::initializer_list<const Tensor*> inputs, const char* op);
Tensor product_finish_out(const Tensor& out, const Tensor& result);

namespace detail {
// Iterates the leading (batch) dims shared by three tensors: offsets (in elements) of batch i.
struct BatchWalk {
  DimVec sizes, s0, s1, s2;
  int64_t count = 1;
  BatchWalk(const Tensor& t0, const Tensor& t1, const Tensor& t2, int64_t tail);
  void offsets(int64_t i, int64_t& o0, int64_t& o1, int64_t& o2) const;
};
// The integer-dtype loops (matmul_int.cpp) behind gemm_batched, gemv_into and dot_into.
void gemm_int(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha);
void gemv_int(const Tensor& y, const Tensor& a, const Tensor& x, const Scalar& beta, const Scalar& alpha);
void dot_int(const Tensor& out, const Tensor& x, const Tensor& y);
// out = beta * out, with beta == 0 writing zeros (the k == 0 product).
void scale_out(const Tensor& out, const Scalar& beta);
}  // namespace detail

}  // namespace ember
