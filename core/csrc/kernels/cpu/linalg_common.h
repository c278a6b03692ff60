// What the LAPACK-backed linalg kernels share: argument checks with PyTorch's messages, batches of
// matrices copied into column-major (Fortran) order for LAPACK, the parallel loop over a batch, and
// turning LAPACK's info codes into LinAlgErrors that name the batch element.
#pragma once
#include <functional>
#include <string>

#include "base/linalg_error.h"
#include "device/parallel.h"
#include "kernels/lapack.h"
#include "tensor/factory.h"

namespace ember::linalg {

// Raises unless t is float32/float64/complex64/complex128 ("Expected a floating point or complex
// tensor as input. Got Long").
void check_floating(const Tensor& t, const char* op, const char* name = "A");
// Raises unless t has at least 2 dims (and, for square, its matrices are square).
void check_matrix(const Tensor& t, const char* op, bool square, const char* name = "A");
void check_same_dtype(const Tensor& a, const Tensor& b, const char* op, const char* na, const char* nb);
// Raises unless n fits LAPACK's 32-bit integers.
int lapack_int(int64_t n, const char* op);

// PyTorch's rule for solve: B is a batch of vectors when it is 1-D or has A's shape minus the last dim.
bool is_vector_rhs(const Tensor& A, const Tensor& B);

// sizes without the last `drop` dims; with `tail` appended.
DimVec batch_of(const DimVec& sizes, int64_t drop = 2);
DimVec with_tail(const DimVec& batch, std::initializer_list<int64_t> tail);
int64_t numel_of(const DimVec& sizes);
// The broadcast of two batch shapes, or a RuntimeError naming op.
DimVec broadcast_batch(const DimVec& a, const DimVec& b, const char* op);

// Strides that store each matrix of `sizes` column-major, the matrices one after the other.
DimVec fortran_strides(const DimVec& sizes);
// A new tensor of `sizes` (t broadcast to them) with fortran_strides; no copy on meta tensors.
Tensor fortran_copy(const Tensor& t, const DimVec& sizes);
Tensor fortran_empty(const DimVec& sizes, ScalarType dtype, Device device);
// A new C-contiguous tensor of `sizes` (t broadcast to them); no copy on meta tensors.
Tensor dense_copy(const Tensor& t, const DimVec& sizes);
// The permutation matrices (dtype, m x m) of LAPACK pivots (int32, 1-based, batch x k): A = P L U.
Tensor pivots_to_permutation(const Tensor& pivots, int64_t m, ScalarType dtype);

template <class T>
T conj_value(T v) {
  if constexpr (is_complex_v<T>)
    return std::conj(v);
  else
    return v;
}
// The real dtype of a complex one (float32 for complex64), the dtype itself otherwise.
ScalarType real_dtype(ScalarType t);

// Calls f(begin, end) over [0, batch) across ember's threads; LAPACK runs single-threaded in each.
// f must not throw: errors are reported through info codes and raised after the loop.
template <class F>
void for_each_matrix(int64_t batch, const F& f) {
  parallel_for(batch, 1, f);
}

// Calls f(T{}) for the four LAPACK types.
template <class F>
void visit_lapack(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float32:
      f(float{});
      break;
    case ScalarType::Float64:
      f(double{});
      break;
    case ScalarType::Complex64:
      f(complex64{});
      break;
    case ScalarType::Complex128:
      f(complex128{});
      break;
    default:
      EMBER_FAIL(Type, "linalg: unsupported dtype ", dtype_name(t));
  }
}

// An int32 info tensor of the batch shape, zeros.
Tensor info_zeros(const DimVec& batch, Device device);
// Raises LinAlgError for the first nonzero code in info: "<op>: (Batch element i): <what(code)>"
// (no batch part for a single matrix).
void raise_for_info(const Tensor& info, const char* op, const std::function<std::string(int)>& what);

// Raises LinAlgError naming the first batch element of the Fortran-ordered batch `a` that holds a
// NaN or an infinity: the iterative decompositions (svd, eigh, eig) must not run on those (LAPACK's
// geev reads out of bounds on an infinite input).
void check_finite(const Tensor& a, const char* op);

// The messages of the common failures.
std::string singular_message(int code);                          // getrf: "The diagonal element 2 is zero, ..."
std::string not_pd_message(int code);                            // potrf
std::string no_convergence_message(int code, const char* what);  // gesdd / syevd / geev

}  // namespace ember::linalg
