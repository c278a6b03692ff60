// The LAPACK calls behind kernels/lapack.h: one specialization per scalar type, spelled through
// lapack.h's LAPACK_<x> macros with the wheel's scipy_ prefix. OpenBLAS stays single-threaded
// (kernels/blas.cpp): batches are split across ember's threads instead.
#include <complex>
#include <vector>

#define LAPACK_GLOBAL(lcname, UCNAME) scipy_##lcname##_
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapack.h>

#include "kernels/lapack.h"

// trsm is BLAS, not LAPACK: its Fortran symbol, declared here (OpenBLAS's C implementation takes
// no hidden string lengths).
extern "C" {
void scipy_strsm_(const char*, const char*, const char*, const char*, const int*, const int*, const float*,
                  const float*, const int*, float*, const int*);
void scipy_dtrsm_(const char*, const char*, const char*, const char*, const int*, const int*, const double*,
                  const double*, const int*, double*, const int*);
void scipy_ctrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
                  const std::complex<float>*, const std::complex<float>*, const int*, std::complex<float>*, const int*);
void scipy_ztrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
                  const std::complex<double>*, const std::complex<double>*, const int*, std::complex<double>*,
                  const int*);
}

namespace ember::lapack {

using c64 = std::complex<float>;
using c128 = std::complex<double>;

// The routines whose arguments are the same for all four types: one specialization per prefix.
#define EMBER_LAPACK_SAME(T, p)                                                                               \
  template <>                                                                                                 \
  int potrf<T>(char uplo, int n, T* a, int lda) {                                                             \
    int info = 0;                                                                                             \
    scipy_LAPACK_##p##potrf(&uplo, &n, a, &lda, &info);                                                       \
    return info;                                                                                              \
  }                                                                                                           \
  template <>                                                                                                 \
  int getrf<T>(int m, int n, T* a, int lda, int* ipiv) {                                                      \
    int info = 0;                                                                                             \
    LAPACK_##p##getrf(&m, &n, a, &lda, ipiv, &info);                                                          \
    return info;                                                                                              \
  }                                                                                                           \
  template <>                                                                                                 \
  int getri<T>(int n, T* a, int lda, const int* ipiv, T* work, int lwork) {                                   \
    int info = 0;                                                                                             \
    LAPACK_##p##getri(&n, a, &lda, ipiv, work, &lwork, &info);                                                \
    return info;                                                                                              \
  }                                                                                                           \
  template <>                                                                                                 \
  int getrs<T>(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb) {            \
    int info = 0;                                                                                             \
    scipy_LAPACK_##p##getrs(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info);                                \
    return info;                                                                                              \
  }                                                                                                           \
  template <>                                                                                                 \
  void trsm<T>(char side, char uplo, char trans, char diag, int m, int n, T alpha, const T* a, int lda, T* b, \
               int ldb) {                                                                                     \
    scipy_##p##trsm_(&side, &uplo, &trans, &diag, &m, &n, &alpha, a, &lda, b, &ldb);                          \
  }                                                                                                           \
  template <>                                                                                                 \
  int geqrf<T>(int m, int n, T* a, int lda, T* tau, T* work, int lwork) {                                     \
    int info = 0;                                                                                             \
    LAPACK_##p##geqrf(&m, &n, a, &lda, tau, work, &lwork, &info);                                             \
    return info;                                                                                              \
  }                                                                                                           \
  template <>                                                                                                 \
  int gels<T>(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* work, int lwork) {                     \
    int info = 0;                                                                                             \
    const char trans = 'N';                                                                                   \
    scipy_LAPACK_##p##gels(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, &info);                     \
    return info;                                                                                              \
  }

EMBER_LAPACK_SAME(float, s)
EMBER_LAPACK_SAME(double, d)
EMBER_LAPACK_SAME(c64, c)
EMBER_LAPACK_SAME(c128, z)
#undef EMBER_LAPACK_SAME

// The routines whose real and complex forms differ only by the complex ones' rwork.
#define EMBER_LAPACK_REAL(T, p, orgqr_name)                                                                            \
  template <>                                                                                                          \
  int gesdd<T>(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt, T* work, int lwork, T*,   \
               int* iwork) {                                                                                           \
    int info = 0;                                                                                                      \
    scipy_LAPACK_##p##gesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info);                \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int syevd<T>(char jobz, char uplo, int n, T* a, int lda, T* w, T* work, int lwork, T*, int, int* iwork,              \
               int liwork) {                                                                                           \
    int info = 0;                                                                                                      \
    scipy_LAPACK_##p##syevd(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info);                        \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int orgqr<T>(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork) {                                 \
    int info = 0;                                                                                                      \
    LAPACK_##p##orgqr_name(&m, &n, &k, a, &lda, tau, work, &lwork, &info);                                             \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int gelsy<T>(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* jpvt, T rcond, int* rank, T* work,           \
               int lwork, T*) {                                                                                        \
    int info = 0;                                                                                                      \
    LAPACK_##p##gelsy(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, &info);                       \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int gelsd<T>(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* s, T rcond, int* rank, T* work, int lwork, T*, \
               int* iwork) {                                                                                           \
    int info = 0;                                                                                                      \
    LAPACK_##p##gelsd(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, &info);                   \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int gelss<T>(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* s, T rcond, int* rank, T* work, int lwork,     \
               T*) {                                                                                                   \
    int info = 0;                                                                                                      \
    LAPACK_##p##gelss(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, &info);                          \
    return info;                                                                                                       \
  }

EMBER_LAPACK_REAL(float, s, orgqr)
EMBER_LAPACK_REAL(double, d, orgqr)
#undef EMBER_LAPACK_REAL

#define EMBER_LAPACK_COMPLEX(T, R, p)                                                                                  \
  template <>                                                                                                          \
  int gesdd<T>(char jobz, int m, int n, T* a, int lda, R* s, T* u, int ldu, T* vt, int ldvt, T* work, int lwork,       \
               R* rwork, int* iwork) {                                                                                 \
    int info = 0;                                                                                                      \
    scipy_LAPACK_##p##gesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, &info);         \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int syevd<T>(char jobz, char uplo, int n, T* a, int lda, R* w, T* work, int lwork, R* rwork, int lrwork, int* iwork, \
               int liwork) {                                                                                           \
    int info = 0;                                                                                                      \
    scipy_LAPACK_##p##heevd(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, &info);        \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int orgqr<T>(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork) {                                 \
    int info = 0;                                                                                                      \
    LAPACK_##p##ungqr(&m, &n, &k, a, &lda, tau, work, &lwork, &info);                                                  \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int gelsy<T>(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* jpvt, R rcond, int* rank, T* work,           \
               int lwork, R* rwork) {                                                                                  \
    int info = 0;                                                                                                      \
    LAPACK_##p##gelsy(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, rwork, &info);                \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int gelsd<T>(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, R* s, R rcond, int* rank, T* work, int lwork,     \
               R* rwork, int* iwork) {                                                                                 \
    int info = 0;                                                                                                      \
    LAPACK_##p##gelsd(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, rwork, iwork, &info);            \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int gelss<T>(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, R* s, R rcond, int* rank, T* work, int lwork,     \
               R* rwork) {                                                                                             \
    int info = 0;                                                                                                      \
    LAPACK_##p##gelss(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, rwork, &info);                   \
    return info;                                                                                                       \
  }                                                                                                                    \
  template <>                                                                                                          \
  int geev<T>(char jobvr, int n, T* a, int lda, T* w, T* vr, int ldvr, T* work, int lwork, R* rwork) {                 \
    int info = 0;                                                                                                      \
    const char jobvl = 'N';                                                                                            \
    int one = 1;                                                                                                       \
    scipy_LAPACK_##p##geev(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &one, vr, &ldvr, work, &lwork, rwork, &info);      \
    return info;                                                                                                       \
  }

EMBER_LAPACK_COMPLEX(c64, float, c)
EMBER_LAPACK_COMPLEX(c128, double, z)
#undef EMBER_LAPACK_COMPLEX

// Real geev gives eigenvalues as (wr, wi) and conjugate pairs of eigenvectors packed as two real
// columns (re, im); they are unpacked here into the complex w and vr the callers want. A query
// (lwork == -1) only asks for the size of work.
#define EMBER_LAPACK_GEEV_REAL(T, p)                                                                                   \
  template <>                                                                                                          \
  int geev<T>(char jobvr, int n, T* a, int lda, std::complex<T>* w, std::complex<T>* vr, int ldvr, T* work, int lwork, \
              T*) {                                                                                                    \
    int info = 0;                                                                                                      \
    const char jobvl = 'N';                                                                                            \
    int one = 1;                                                                                                       \
    const bool vectors = jobvr == 'V';                                                                                 \
    int ldr = vectors ? (n > 0 ? n : 1) : 1;                                                                           \
    std::vector<T> wr(lwork == -1 ? 1 : n), wi(lwork == -1 ? 1 : n);                                                   \
    std::vector<T> vreal(lwork == -1 || !vectors ? 1 : size_t(n) * n);                                                 \
    scipy_LAPACK_##p##geev(&jobvl, &jobvr, &n, a, &lda, wr.data(), wi.data(), nullptr, &one, vreal.data(), &ldr, work, \
                           &lwork, &info);                                                                             \
    if (lwork == -1 || info != 0) return info;                                                                         \
    for (int j = 0; j < n; j++) w[j] = {wr[j], wi[j]};                                                                 \
    if (!vectors) return info;                                                                                         \
    for (int j = 0; j < n; j++) {                                                                                      \
      const T* re = vreal.data() + size_t(j) * n;                                                                      \
      if (wi[j] != T(0) && j + 1 < n) {                                                                                \
        const T* im = re + n;                                                                                          \
        for (int i = 0; i < n; i++) {                                                                                  \
          vr[size_t(j) * ldvr + i] = {re[i], im[i]};                                                                   \
          vr[size_t(j + 1) * ldvr + i] = {re[i], -im[i]};                                                              \
        }                                                                                                              \
        j++;                                                                                                           \
      } else {                                                                                                         \
        for (int i = 0; i < n; i++) vr[size_t(j) * ldvr + i] = {re[i], T(0)};                                          \
      }                                                                                                                \
    }                                                                                                                  \
    return info;                                                                                                       \
  }

EMBER_LAPACK_GEEV_REAL(float, s)
EMBER_LAPACK_GEEV_REAL(double, d)
#undef EMBER_LAPACK_GEEV_REAL

}  // namespace ember::lapack
