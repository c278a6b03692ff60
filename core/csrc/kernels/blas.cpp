// The CBLAS calls behind kernels/blas.h, and the hook that keeps OpenBLAS's own thread pool the
// size ember.set_num_threads sets (registered with device/, which knows nothing of BLAS).
#include "kernels/blas.h"

#include <cblas.h>

#include "device/parallel.h"

namespace ember::blas {

namespace {

CBLAS_TRANSPOSE trans(Op op) { return op == Op::N ? CblasNoTrans : op == Op::T ? CblasTrans : CblasConjTrans; }

// OpenBLAS starts its pool at its own default size; from the first use on, it follows ember's count.
[[maybe_unused]] const bool g_threads_hooked = [] {
  add_num_threads_observer(&scipy_openblas_set_num_threads);
  scipy_openblas_set_num_threads(get_num_threads());
  return true;
}();

}  // namespace

SerialBlas::SerialBlas() : previous_(scipy_openblas_get_num_threads()) { scipy_openblas_set_num_threads(1); }
SerialBlas::~SerialBlas() { scipy_openblas_set_num_threads(previous_); }

template <>
void gemm<float>(Op ta, Op tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  scipy_cblas_sgemm(CblasRowMajor, trans(ta), trans(tb), blasint(m), blasint(n), blasint(k), alpha, a, blasint(lda), b,
                    blasint(ldb), beta, c, blasint(ldc));
}

template <>
void gemm<double>(Op ta, Op tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
                  const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  scipy_cblas_dgemm(CblasRowMajor, trans(ta), trans(tb), blasint(m), blasint(n), blasint(k), alpha, a, blasint(lda), b,
                    blasint(ldb), beta, c, blasint(ldc));
}

template <>
void gemm<complex64>(Op ta, Op tb, int64_t m, int64_t n, int64_t k, complex64 alpha, const complex64* a, int64_t lda,
                     const complex64* b, int64_t ldb, complex64 beta, complex64* c, int64_t ldc) {
  scipy_cblas_cgemm(CblasRowMajor, trans(ta), trans(tb), blasint(m), blasint(n), blasint(k), &alpha, a, blasint(lda), b,
                    blasint(ldb), &beta, c, blasint(ldc));
}

template <>
void gemm<complex128>(Op ta, Op tb, int64_t m, int64_t n, int64_t k, complex128 alpha, const complex128* a,
                      int64_t lda, const complex128* b, int64_t ldb, complex128 beta, complex128* c, int64_t ldc) {
  scipy_cblas_zgemm(CblasRowMajor, trans(ta), trans(tb), blasint(m), blasint(n), blasint(k), &alpha, a, blasint(lda), b,
                    blasint(ldb), &beta, c, blasint(ldc));
}

template <>
void gemv<float>(Op ta, int64_t m, int64_t n, float alpha, const float* a, int64_t lda, const float* x, int64_t incx,
                 float beta, float* y, int64_t incy) {
  scipy_cblas_sgemv(CblasRowMajor, trans(ta), blasint(m), blasint(n), alpha, a, blasint(lda), x, blasint(incx), beta, y,
                    blasint(incy));
}

template <>
void gemv<double>(Op ta, int64_t m, int64_t n, double alpha, const double* a, int64_t lda, const double* x,
                  int64_t incx, double beta, double* y, int64_t incy) {
  scipy_cblas_dgemv(CblasRowMajor, trans(ta), blasint(m), blasint(n), alpha, a, blasint(lda), x, blasint(incx), beta, y,
                    blasint(incy));
}

template <>
void gemv<complex64>(Op ta, int64_t m, int64_t n, complex64 alpha, const complex64* a, int64_t lda,
                     const complex64* x, int64_t incx, complex64 beta, complex64* y, int64_t incy) {
  scipy_cblas_cgemv(CblasRowMajor, trans(ta), blasint(m), blasint(n), &alpha, a, blasint(lda), x, blasint(incx), &beta,
                    y, blasint(incy));
}

template <>
void gemv<complex128>(Op ta, int64_t m, int64_t n, complex128 alpha, const complex128* a, int64_t lda,
                      const complex128* x, int64_t incx, complex128 beta, complex128* y, int64_t incy) {
  scipy_cblas_zgemv(CblasRowMajor, trans(ta), blasint(m), blasint(n), &alpha, a, blasint(lda), x, blasint(incx), &beta,
                    y, blasint(incy));
}

// dot over more than 2^31 - 1 elements runs in pieces (BLAS counts are 32-bit here).
template <class T, class F>
T chunked(int64_t n, const T* x, int64_t incx, const T* y, int64_t incy, F f) {
  T acc{};
  for (int64_t at = 0; at < n; at += kMaxInt) {
    const int64_t len = n - at < kMaxInt ? n - at : kMaxInt;
    acc += f(blasint(len), x + at * incx, y + at * incy);
  }
  return acc;
}

template <>
float dot<float>(int64_t n, const float* x, int64_t incx, const float* y, int64_t incy, bool) {
  return chunked(n, x, incx, y, incy, [&](blasint len, const float* px, const float* py) {
    return scipy_cblas_sdot(len, px, blasint(incx), py, blasint(incy));
  });
}

template <>
double dot<double>(int64_t n, const double* x, int64_t incx, const double* y, int64_t incy, bool) {
  return chunked(n, x, incx, y, incy, [&](blasint len, const double* px, const double* py) {
    return scipy_cblas_ddot(len, px, blasint(incx), py, blasint(incy));
  });
}

template <>
complex64 dot<complex64>(int64_t n, const complex64* x, int64_t incx, const complex64* y, int64_t incy, bool conj_x) {
  return chunked(n, x, incx, y, incy, [&](blasint len, const complex64* px, const complex64* py) {
    complex64 r;
    if (conj_x) scipy_cblas_cdotc_sub(len, px, blasint(incx), py, blasint(incy), &r);
    else scipy_cblas_cdotu_sub(len, px, blasint(incx), py, blasint(incy), &r);
    return r;
  });
}

template <>
complex128 dot<complex128>(int64_t n, const complex128* x, int64_t incx, const complex128* y, int64_t incy,
                           bool conj_x) {
  return chunked(n, x, incx, y, incy, [&](blasint len, const complex128* px, const complex128* py) {
    complex128 r;
    if (conj_x) scipy_cblas_zdotc_sub(len, px, blasint(incx), py, blasint(incy), &r);
    else scipy_cblas_zdotu_sub(len, px, blasint(incx), py, blasint(incy), &r);
    return r;
  });
}

}  // namespace ember::blas
