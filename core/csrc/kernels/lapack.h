// The thin wrapper over OpenBLAS's LAPACK (scipy-openblas32: 32-bit ints, scipy_ symbol prefix), for
// float, double, complex64 and complex128. Matrices are column-major (Fortran order), as LAPACK's;
// nothing else in the core includes lapack.h. Each call returns LAPACK's info.
#pragma once
#include <cstdint>

#include "types/dtype.h"

namespace ember::lapack {

template <class T>
struct Real {
  using type = T;
};
template <class T>
struct Real<std::complex<T>> {
  using type = T;
};
template <class T>
using real_t = typename Real<T>::type;
template <class T>
using cplx_t = std::complex<real_t<T>>;

// Calls with lwork == -1 are workspace queries: they write the optimal size into work[0].
template <class T>
int potrf(char uplo, int n, T* a, int lda);
template <class T>
int getrf(int m, int n, T* a, int lda, int* ipiv);
template <class T>
int getri(int n, T* a, int lda, const int* ipiv, T* work, int lwork);
template <class T>
int getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb);
// B := alpha * op(A)^-1 B (side 'L') or B op(A)^-1 (side 'R') for triangular A (BLAS trsm; no
// singularity check, as PyTorch's solve_triangular).
template <class T>
void trsm(char side, char uplo, char trans, char diag, int m, int n, T alpha, const T* a, int lda, T* b, int ldb);
// Divide-and-conquer SVD; jobz 'N' (values only), 'S' (reduced) or 'A' (full). rwork: complex only.
template <class T>
int gesdd(char jobz, int m, int n, T* a, int lda, real_t<T>* s, T* u, int ldu, T* vt, int ldvt, T* work, int lwork,
          real_t<T>* rwork, int* iwork);
// Hermitian eigendecomposition (syevd/heevd); jobz 'N' or 'V'. rwork/lrwork: complex only.
template <class T>
int syevd(char jobz, char uplo, int n, T* a, int lda, real_t<T>* w, T* work, int lwork, real_t<T>* rwork, int lrwork,
          int* iwork, int liwork);
template <class T>
int geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork);
// Q from geqrf's reflectors (orgqr for real types, ungqr for complex).
template <class T>
int orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork);
// General eigendecomposition into complex eigenvalues w and right eigenvectors vr (n x n, complex),
// for any of the four types; jobvr 'N' or 'V'. scratch holds what the real routines need (see .cpp).
template <class T>
int geev(char jobvr, int n, T* a, int lda, cplx_t<T>* w, cplx_t<T>* vr, int ldvr, T* work, int lwork, real_t<T>* rwork);
// Least squares. gels: QR (full rank); gelsy: pivoted QR; gelsd / gelss: SVD (singular values in s).
template <class T>
int gels(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, T* work, int lwork);
template <class T>
int gelsy(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, int* jpvt, real_t<T> rcond, int* rank, T* work,
          int lwork, real_t<T>* rwork);
template <class T>
int gelsd(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, real_t<T>* s, real_t<T> rcond, int* rank, T* work,
          int lwork, real_t<T>* rwork, int* iwork);
template <class T>
int gelss(int m, int n, int nrhs, T* a, int lda, T* b, int ldb, real_t<T>* s, real_t<T> rcond, int* rank, T* work,
          int lwork, real_t<T>* rwork);

// The optimal lwork a query wrote into work[0].
template <class T>
int lwork_of(const T& w) {
  return int(std::real(w)) + 1;
}

}  // namespace ember::lapack
