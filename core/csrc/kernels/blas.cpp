// The CBLAS calls behind kernels/blas.h. OpenBLAS runs single-threaded, always: its own pool of
// spinning threads beside ember's own team made two pools fight over 2 cores (a 784-256-256-10
// training step took 5 ms on 2 threads, 1.25 ms on one). Large products are split across ember's
// team instead, so one pool does all the work.
#include "kernels/blas.h"

#include <cblas.h>

#include <algorithm>

#include "device/parallel.h"

namespace ember::blas {

namespace {

CBLAS_TRANSPOSE trans(Op op) { return op == Op::N ? CblasNoTrans : op == Op::T ? CblasTrans : CblasConjTrans; }

[[maybe_unused]] const bool g_single_threaded = [] {
  scipy_openblas_set_num_threads(1);
  return true;
}();

// Below this many multiply-adds a product is not worth a second thread.
constexpr double kSplitFrom = 64.0 * 64.0 * 64.0;

}  // namespace

template <>
void gemm_serial<float>(Op ta, Op tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                        const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  scipy_cblas_sgemm(CblasRowMajor, trans(ta), trans(tb), blasint(m), blasint(n), blasint(k), alpha, a, blasint(lda), b,
                    blasint(ldb), beta, c, blasint(ldc));
}

template <>
void gemm_serial<double>(Op ta, Op tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
                         const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  scipy_cblas_dgemm(CblasRowMajor, trans(ta), trans(tb), blasint(m), blasint(n), blasint(k), alpha, a, blasint(lda), b,
                    blasint(ldb), beta, c, blasint(ldc));
}

template <>
void gemm_serial<complex64>(Op ta, Op tb, int64_t m, int64_t n, int64_t k, complex64 alpha, const complex64* a,
                            int64_t lda, const complex64* b, int64_t ldb, complex64 beta, complex64* c, int64_t ldc) {
  scipy_cblas_cgemm(CblasRowMajor, trans(ta), trans(tb), blasint(m), blasint(n), blasint(k), &alpha, a, blasint(lda), b,
                    blasint(ldb), &beta, c, blasint(ldc));
}

template <>
void gemm_serial<complex128>(Op ta, Op tb, int64_t m, int64_t n, int64_t k, complex128 alpha, const complex128* a,
                             int64_t lda, const complex128* b, int64_t ldb, complex128 beta, complex128* c,
                             int64_t ldc) {
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
void gemv<complex64>(Op ta, int64_t m, int64_t n, complex64 alpha, const complex64* a, int64_t lda, const complex64* x,
                     int64_t incx, complex64 beta, complex64* y, int64_t incy) {
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
    if (conj_x)
      scipy_cblas_cdotc_sub(len, px, blasint(incx), py, blasint(incy), &r);
    else
      scipy_cblas_cdotu_sub(len, px, blasint(incx), py, blasint(incy), &r);
    return r;
  });
}

template <>
complex128 dot<complex128>(int64_t n, const complex128* x, int64_t incx, const complex128* y, int64_t incy,
                           bool conj_x) {
  return chunked(n, x, incx, y, incy, [&](blasint len, const complex128* px, const complex128* py) {
    complex128 r;
    if (conj_x)
      scipy_cblas_zdotc_sub(len, px, blasint(incx), py, blasint(incy), &r);
    else
      scipy_cblas_zdotu_sub(len, px, blasint(incx), py, blasint(incy), &r);
    return r;
  });
}

template <class T>
void gemm(Op ta, Op tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  const int64_t threads = get_num_threads();
  if (threads <= 1 || in_parallel_region() || double(m) * double(n) * double(k) < kSplitFrom || (m < 2 && n < 2)) {
    gemm_serial<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // Split the longer side of C into one block per thread; each block is an ordinary product of a
  // slice of one operand with the whole other one.
  const bool by_rows = m >= n;
  const int64_t len = by_rows ? m : n, chunk = (len + threads - 1) / threads;
  parallel_for(threads, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; t++) {
      const int64_t start = t * chunk, size = std::min(chunk, len - start);
      if (size <= 0) continue;
      if (by_rows)
        gemm_serial<T>(ta, tb, size, n, k, alpha, a + (ta == Op::N ? start * lda : start), lda, b, ldb, beta,
                       c + start * ldc, ldc);
      else
        gemm_serial<T>(ta, tb, m, size, k, alpha, a, lda, b + (tb == Op::N ? start : start * ldb), ldb, beta, c + start,
                       ldc);
    }
  });
}

template void gemm<float>(Op, Op, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t, float,
                          float*, int64_t);
template void gemm<double>(Op, Op, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*, int64_t,
                           double, double*, int64_t);
template void gemm<complex64>(Op, Op, int64_t, int64_t, int64_t, complex64, const complex64*, int64_t, const complex64*,
                              int64_t, complex64, complex64*, int64_t);
template void gemm<complex128>(Op, Op, int64_t, int64_t, int64_t, complex128, const complex128*, int64_t,
                               const complex128*, int64_t, complex128, complex128*, int64_t);

}  // namespace ember::blas
