// Factorizations and solves on LAPACK: linalg_cholesky(_ex) (potrf), linalg_inv(_ex) (getrf + getri),
// linalg_solve(_ex) (getrf + getrs, with PyTorch's vector right-hand side and left=False) and
// linalg_solve_triangular (trsm). Batches run across ember's threads, one matrix per LAPACK call.
// cholesky, inv and solve factor a row-major copy of A, which LAPACK reads as A^T: no transposing
// copy, and the results come back row-major.
#include "generated/ops/linalg_solve.h"

#include <vector>

#include "generated/ops/linalg_cholesky.h"
#include "generated/ops/linalg_cholesky_ex.h"
#include "generated/ops/linalg_inv.h"
#include "generated/ops/linalg_inv_ex.h"
#include "generated/ops/linalg_solve_ex.h"
#include "generated/ops/linalg_solve_triangular.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"
#include "iter/out_arg.h"
#include "kernels/cpu/linalg_common.h"

namespace ember::ops {

using namespace linalg;

namespace {

// Zeros the triangle of each column-major n x n matrix that a triangular factor leaves unwritten
// (upper: the factor is upper triangular, column-major).
template <class T>
void zero_other_triangle(T* a, int64_t n, bool upper) {
  for (int64_t j = 0; j < n; j++) {
    T* col = a + j * n;
    if (upper)
      for (int64_t i = j + 1; i < n; i++) col[i] = T(0);
    else
      for (int64_t i = 0; i < j && i < n; i++) col[i] = T(0);
  }
}

// OpenBLAS's potrf lets NaN through (a NaN pivot fails no `<= 0` test): the order of the first
// leading minor whose factor diagonal is NaN, reported as a failed minor as PyTorch does; 0 if none.
template <class T>
int first_nan_diagonal(const T* a, int64_t n) {
  for (int64_t j = 0; j < n; j++) {
    const T d = a[j * (n + 1)];
    if (d != d) return int(j + 1);  // NaN in either part of a complex value
  }
  return 0;
}

std::tuple<Tensor, Tensor> cholesky_impl(const Tensor& A, bool upper, bool check_errors, const char* op) {
  check_matrix(A, op, true);
  check_floating(A, op);
  const int64_t n = A.size(-1);
  const int ni = lapack_int(n, op);
  // Column-major, the row-major copy holds conj(A) (A Hermitian): its factor in the other triangle,
  // read back row-major, is A's (conj(A) = U^H U gives A = U^T conj(U), with U^T lower).
  Tensor L = dense_copy(A, A.sizes());
  Tensor info = info_zeros(batch_of(A.sizes()), A.device());
  if (A.is_meta() || L.numel() == 0) return {L, info};
  const int64_t batch = info.numel();
  visit_lapack(A.dtype(), [&](auto z) {
    using T = decltype(z);
    T* base = L.data_as<T>();
    int32_t* inf = info.data_as<int32_t>();
    for_each_matrix(batch, [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; b++) {
        T* a = base + b * n * n;
        inf[b] = lapack::potrf<T>(upper ? 'L' : 'U', ni, a, std::max(ni, 1));
        if (inf[b] == 0) inf[b] = first_nan_diagonal(a, n);
        zero_other_triangle(a, n, !upper);
      }
    });
  });
  if (check_errors) raise_for_info(info, op, not_pd_message);
  return {L, info};
}

// Inverts each matrix of the Fortran-ordered `inv` in place; singular ones leave a code in info.
template <class T>
void invert_batch(const Tensor& inv, const Tensor& info, int64_t n) {
  const int ni = int(n), batch = int(info.numel());
  T query{};
  std::vector<int> probe(1);
  lapack::getri<T>(ni, nullptr, std::max(ni, 1), probe.data(), &query, -1);
  const int lwork = std::max(lapack::lwork_of(query), std::max(ni, 1));
  T* base = inv.data_as<T>();
  int32_t* inf = info.data_as<int32_t>();
  for_each_matrix(batch, [&](int64_t lo, int64_t hi) {
    std::vector<int> ipiv(std::max<int64_t>(n, 1));
    std::vector<T> work(lwork);
    for (int64_t b = lo; b < hi; b++) {
      T* a = base + b * n * n;
      int code = lapack::getrf<T>(ni, ni, a, std::max(ni, 1), ipiv.data());
      if (code == 0) code = lapack::getri<T>(ni, a, std::max(ni, 1), ipiv.data(), work.data(), lwork);
      inf[b] = code;
    }
  });
}

std::tuple<Tensor, Tensor> inv_impl(const Tensor& A, bool check_errors, const char* op) {
  check_matrix(A, op, true);
  check_floating(A, op);
  const int64_t n = A.size(-1);
  lapack_int(n, op);
  // The inverse of A^T (the row-major copy, column-major) is inv(A)^T: row-major, inv(A).
  Tensor inv = dense_copy(A, A.sizes());
  Tensor info = info_zeros(batch_of(A.sizes()), A.device());
  if (A.is_meta() || inv.numel() == 0) return {inv, info};
  visit_lapack(A.dtype(), [&](auto z) { invert_batch<decltype(z)>(inv, info, n); });
  if (check_errors) raise_for_info(info, op, singular_message);
  return {inv, info};
}

// Solves with the LU of each A^T in LU (a row-major copy of A): A X = B is (A^T)^T X = B (getrs
// with trans 'T'); X A = B, i.e. A^T X^T = B^T, is getrs 'N' on B^T. X has B's broadcast batch.
template <class T>
void lu_solve_batch(const Tensor& LU, const Tensor& X, const Tensor& info, int64_t n, int64_t nrhs, bool left) {
  const int ni = int(n), nr = int(nrhs), batch = int(info.numel());
  T* lu = LU.data_as<T>();
  T* x = X.data_as<T>();
  int32_t* inf = info.data_as<int32_t>();
  for_each_matrix(batch, [&](int64_t lo, int64_t hi) {
    std::vector<int> ipiv(std::max<int64_t>(n, 1));
    for (int64_t b = lo; b < hi; b++) {
      T* a = lu + b * n * n;
      const int code = lapack::getrf<T>(ni, ni, a, std::max(ni, 1), ipiv.data());
      inf[b] = code;
      if (code == 0 && nr > 0)
        lapack::getrs<T>(left ? 'T' : 'N', ni, nr, a, std::max(ni, 1), ipiv.data(), x + b * n * nrhs, std::max(ni, 1));
    }
  });
}

std::tuple<Tensor, Tensor> solve_impl(const Tensor& A, const Tensor& B, bool left, bool check_errors, const char* op) {
  check_matrix(A, op, true);
  check_floating(A, op);
  check_same_dtype(A, B, op, "A", "B");
  const bool vector = is_vector_rhs(A, B);
  const Tensor B2 = vector ? unsqueeze(B, -1) : B;
  EMBER_CHECK(B2.dim() >= 2, Runtime, op, ": The input tensor B must have at least 2 dimensions.");
  const int64_t n = A.size(-1);
  lapack_int(n, op);
  // Right solves work on B^T: (A^T) X^T = B^T.
  const Tensor Bs = left ? B2 : transpose(B2, -2, -1);
  EMBER_CHECK(Bs.size(-2) == n, Runtime, op, ": Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", A.size(-2), "x", A.size(-1), " and ", B2.size(-2), "x", B2.size(-1),
              ")");
  const int64_t nrhs = Bs.size(-1);
  lapack_int(nrhs, op);
  const DimVec batch = broadcast_batch(batch_of(A.sizes()), batch_of(Bs.sizes()), op);
  Tensor LU = dense_copy(A, with_tail(batch, {n, n}));
  Tensor X = fortran_copy(Bs, with_tail(batch, {n, nrhs}));
  Tensor info = info_zeros(batch, A.device());
  if (!A.is_meta() && LU.numel() > 0)
    visit_lapack(A.dtype(), [&](auto z) { lu_solve_batch<decltype(z)>(LU, X, info, n, nrhs, left); });
  if (check_errors)
    raise_for_info(info, op,
                   [](int) { return std::string("The solver failed because the input matrix is singular."); });
  Tensor result = left ? X : transpose(X, -2, -1);
  if (vector) result = squeeze(result, DimVec{-1});
  return {result, info};
}

void write_two(const Tensor& o0, const Tensor& o1, const std::tuple<Tensor, Tensor>& r, const char* op) {
  write_out(o0, std::get<0>(r), op);
  write_out(o1, std::get<1>(r), op);
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  return cholesky_impl(A, upper, check_errors, "linalg.cholesky_ex");
}
std::tuple<Tensor, Tensor> linalg_cholesky_ex_out(const Tensor& L, const Tensor& info, const Tensor& A, bool upper,
                                                  bool check_errors) {
  write_two(L, info, linalg_cholesky_ex(A, upper, check_errors), "linalg.cholesky_ex");
  return {L, info};
}
Tensor linalg_cholesky(const Tensor& A, bool upper) {
  return std::get<0>(cholesky_impl(A, upper, true, "linalg.cholesky"));
}
Tensor linalg_cholesky_out(const Tensor& out, const Tensor& A, bool upper) {
  return write_out(out, linalg_cholesky(A, upper), "linalg.cholesky");
}

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  return inv_impl(A, check_errors, "linalg.inv_ex");
}
std::tuple<Tensor, Tensor> linalg_inv_ex_out(const Tensor& inverse, const Tensor& info, const Tensor& A,
                                             bool check_errors) {
  write_two(inverse, info, linalg_inv_ex(A, check_errors), "linalg.inv_ex");
  return {inverse, info};
}
Tensor linalg_inv(const Tensor& A) { return std::get<0>(inv_impl(A, true, "linalg.inv")); }
Tensor linalg_inv_out(const Tensor& out, const Tensor& A) { return write_out(out, linalg_inv(A), "linalg.inv"); }

std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  return solve_impl(A, B, left, check_errors, "linalg.solve_ex");
}
std::tuple<Tensor, Tensor> linalg_solve_ex_out(const Tensor& result, const Tensor& info, const Tensor& A,
                                               const Tensor& B, bool left, bool check_errors) {
  write_two(result, info, linalg_solve_ex(A, B, left, check_errors), "linalg.solve_ex");
  return {result, info};
}
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  return std::get<0>(solve_impl(A, B, left, true, "linalg.solve"));
}
Tensor linalg_solve_out(const Tensor& out, const Tensor& A, const Tensor& B, bool left) {
  return write_out(out, linalg_solve(A, B, left), "linalg.solve");
}

Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  check_matrix(A, op, true);
  check_matrix(B, op, false, "B");
  check_floating(A, op);
  check_same_dtype(A, B, op, "A", "B");
  const int64_t n = A.size(-1);
  EMBER_CHECK((left ? B.size(-2) : B.size(-1)) == n, Runtime, op, ": Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", A.size(-2), "x", A.size(-1), " and ", B.size(-2), "x", B.size(-1), ")");
  const int64_t rows = B.size(-2), cols = B.size(-1);
  const int ni = lapack_int(n, op), ri = lapack_int(rows, op), ci = lapack_int(cols, op);
  const DimVec batch = broadcast_batch(batch_of(A.sizes()), batch_of(B.sizes()), op);
  Tensor Af = fortran_copy(A, with_tail(batch, {n, n}));
  Tensor X = fortran_copy(B, with_tail(batch, {rows, cols}));
  if (A.is_meta() || X.numel() == 0) return X;
  const int64_t count = numel_of(batch);
  visit_lapack(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* a = Af.data_as<T>();
    T* x = X.data_as<T>();
    for_each_matrix(count, [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; b++)
        lapack::trsm<T>(left ? 'L' : 'R', upper ? 'U' : 'L', 'N', unitriangular ? 'U' : 'N', ri, ci, T(1),
                        a + b * n * n, std::max(ni, 1), x + b * rows * cols, std::max(ri, 1));
    });
  });
  return X;
}
Tensor linalg_solve_triangular_out(const Tensor& out, const Tensor& A, const Tensor& B, bool upper, bool left,
                                   bool unitriangular) {
  return write_out(out, linalg_solve_triangular(A, B, upper, left, unitriangular), "linalg.solve_triangular");
}

}  // namespace ember::ops
