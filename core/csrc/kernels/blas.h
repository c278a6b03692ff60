// The thin wrapper over OpenBLAS's CBLAS (scipy-openblas32: 32-bit ints, scipy_ symbol prefix):
// row-major gemm, gemv and dot for float, double, complex64 and complex128. Nothing else in the
// core includes cblas.h; callers check that sizes fit in 32 bits (fits_blas) before calling.
#pragma once
#include <cstdint>

#include "types/dtype.h"

namespace ember::blas {

// How a row-major operand is used: as stored, transposed, or conjugate-transposed.
enum class Op : int8_t { N, T, C };

constexpr int64_t kMaxInt = 2147483647;
inline bool fits_blas(int64_t v) { return v >= 0 && v <= kMaxInt; }

// C (m x n, row-major, leading dim ldc) = alpha * op(A) op(B) + beta * C; beta == 0 overwrites C
// (NaN in C ignored). A is m x k after op, B is k x n after op; lda/ldb are their stored row strides.
// A large product is split across ember's threads (inside a parallel region it runs on the caller).
template <class T>
void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc);

// The same on the calling thread only.
template <class T>
void gemm_serial(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                 int64_t ldb, T beta, T* c, int64_t ldc);

// y (incy) = alpha * op(A) x (incx) + beta * y, A row-major m x n with leading dim lda (op on A).
template <class T>
void gemv(Op ta, int64_t m, int64_t n, T alpha, const T* a, int64_t lda, const T* x, int64_t incx, T beta, T* y,
          int64_t incy);

// sum_i conj?(x_i) * y_i over n elements (positive increments); conj only matters for complex.
template <class T>
T dot(int64_t n, const T* x, int64_t incx, const T* y, int64_t incy, bool conj_x);

}  // namespace ember::blas
