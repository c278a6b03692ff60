// The LU family on LAPACK's getrf / getrs: linalg_lu_factor(_ex), linalg_lu (P, L, U), linalg_lu_solve
// (left / adjoint), and linalg_det / linalg_slogdet from the diagonal of U and the pivots' parity.
// Pivots are LAPACK's: int32, 1-based, row i swapped with row pivots[i] in turn.
#include "generated/ops/linalg_lu.h"

#include <cmath>
#include <limits>
#include <vector>

#include "generated/ops/linalg_det.h"
#include "generated/ops/linalg_lu_factor.h"
#include "generated/ops/linalg_lu_factor_ex.h"
#include "generated/ops/linalg_lu_solve.h"
#include "generated/ops/linalg_slogdet.h"
#include "generated/ops/transpose.h"
#include "iter/out_arg.h"
#include "kernels/cpu/linalg_common.h"

namespace ember::linalg {

Tensor pivots_to_permutation(const Tensor& pivots, int64_t m, ScalarType dtype) {
  const DimVec batch = batch_of(pivots.sizes(), 1);
  Tensor P = empty(with_tail(batch, {m, m}), dtype, pivots.device());
  if (P.is_meta() || P.numel() == 0) return P;
  const int64_t k = pivots.size(-1), count = numel_of(batch);
  const int32_t* piv = pivots.data_as<int32_t>();
  visit_lapack(dtype, [&](auto z) {
    using T = decltype(z);
    T* p = P.data_as<T>();
    std::vector<int64_t> perm(m);
    for (int64_t b = 0; b < count; b++) {
      for (int64_t i = 0; i < m; i++) perm[i] = i;
      for (int64_t i = 0; i < k; i++) {
        const int64_t j = piv[b * k + i] - 1;
        EMBER_CHECK(j >= 0 && j < m, Runtime, "linalg.lu: pivots must be between 1 and ", m, ", got ", j + 1);
        std::swap(perm[i], perm[j]);
      }
      // A = P L U: row perm[i] of A is row i of L U, so P[perm[i], i] = 1.
      T* pb = p + b * m * m;
      for (int64_t i = 0; i < m * m; i++) pb[i] = T(0);
      for (int64_t i = 0; i < m; i++) pb[perm[i] * m + i] = T(1);
    }
  });
  return P;
}

}  // namespace ember::linalg

namespace ember::ops {

using namespace linalg;

namespace {

void check_pivot(bool pivot, const char* op) {
  EMBER_CHECK(pivot, Runtime, op, ": LU without pivoting is not implemented on the CPU");
}

struct LuOut {
  Tensor LU, pivots, info;
};

// getrf of each matrix of A; of each A^T when transposed (a row-major copy, no transposing copy:
// enough for det, det(A^T) = det(A)).
LuOut lu_factor_impl(const Tensor& A, const char* op, bool transposed = false) {
  check_matrix(A, op, false);
  check_floating(A, op);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const int mi = lapack_int(m, op), ni = lapack_int(n, op);
  const DimVec batch = batch_of(A.sizes());
  LuOut r{transposed ? dense_copy(A, A.sizes()) : fortran_copy(A, A.sizes()),
          empty(with_tail(batch, {k}), ScalarType::Int32, A.device()), info_zeros(batch, A.device())};
  if (A.is_meta() || r.LU.numel() == 0) return r;
  visit_lapack(A.dtype(), [&](auto z) {
    using T = decltype(z);
    T* base = r.LU.data_as<T>();
    int32_t* piv = r.pivots.data_as<int32_t>();
    int32_t* inf = r.info.data_as<int32_t>();
    for_each_matrix(r.info.numel(), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; b++)
        inf[b] = lapack::getrf<T>(mi, ni, base + b * m * n, std::max(mi, 1), piv + b * k);
    });
  });
  return r;
}

// sign and log|det| (or det itself) of each square matrix from its LU factors.
template <class T>
void det_from_lu(const LuOut& lu, int64_t n, const Tensor& sign, const Tensor& logabs, const Tensor& det) {
  using R = lapack::real_t<T>;
  const T* a = lu.LU.data_as<T>();
  const int32_t* piv = lu.pivots.data_as<int32_t>();
  for (int64_t b = 0; b < lu.info.numel(); b++) {
    const T* m = a + b * n * n;
    T s(1);
    R la(0);
    T d(1);
    for (int64_t i = 0; i < n; i++) {
      const T u = m[i * n + i];
      const bool swapped = piv[b * n + i] != i + 1;
      d *= swapped ? -u : u;
      const R au = std::abs(u);
      la += std::log(au);
      s *= au == R(0) ? T(0) : (swapped ? -u : u) / au;
    }
    if (det.defined()) det.data_as<T>()[b] = d;
    if (sign.defined()) {
      sign.data_as<T>()[b] = s;
      logabs.data_as<R>()[b] = s == T(0) ? -std::numeric_limits<R>::infinity() : la;
    }
  }
}

std::tuple<Tensor, Tensor, Tensor> det_impl(const Tensor& A, bool want_det, const char* op) {
  check_matrix(A, op, true);
  check_floating(A, op);
  const DimVec batch = batch_of(A.sizes());
  const int64_t n = A.size(-1);
  Tensor det, sign, logabs;
  if (want_det) {
    det = empty(batch, A.dtype(), A.device());
  } else {
    sign = empty(batch, A.dtype(), A.device());
    logabs = empty(batch, real_dtype(A.dtype()), A.device());
  }
  if (A.is_meta() || numel_of(batch) == 0) return {det, sign, logabs};
  const LuOut lu = lu_factor_impl(A, op, true);
  visit_lapack(A.dtype(), [&](auto z) { det_from_lu<decltype(z)>(lu, n, sign, logabs, det); });
  return {det, sign, logabs};
}

// X for A X = B with A = P L U given as (LU, pivots); see linalg_lu_solve for the four forms.
Tensor lu_solve_impl(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  check_matrix(LU, op, true, "LU");
  check_matrix(B, op, false, "B");
  check_floating(LU, op, "LU");
  check_same_dtype(LU, B, op, "LU", "B");
  EMBER_CHECK(pivots.dtype() == ScalarType::Int32, Runtime, op, ": pivots should be a Tensor of scalar type int32");
  const int64_t n = LU.size(-1);
  EMBER_CHECK(pivots.dim() == LU.dim() - 1 && pivots.size(-1) == n, Runtime, op, ": Expected pivots to have shape ",
              with_tail(batch_of(LU.sizes()), {n}), " but got ", pivots.sizes());
  EMBER_CHECK((left ? B.size(-2) : B.size(-1)) == n, Runtime, op, ": Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B.size(-2), "x", B.size(-1), ")");
  // Right solves: X A = B is A^T X^T = B^T; X A^H = B is A X^H = B^H.
  const Tensor Bs = left ? B : transpose(B, -2, -1);
  const bool conj_rhs = !left && adjoint && is_complex(B.dtype());
  const char trans = left ? (adjoint ? 'C' : 'N') : (adjoint ? 'N' : 'T');
  const int64_t nrhs = Bs.size(-1);
  const int ni = lapack_int(n, op), nr = lapack_int(nrhs, op);
  DimVec batch = broadcast_batch(batch_of(LU.sizes()), batch_of(Bs.sizes()), op);
  batch = broadcast_batch(batch, batch_of(pivots.sizes(), 1), op);
  const Tensor LUf = fortran_copy(LU, with_tail(batch, {n, n}));
  const Tensor piv = dense_copy(pivots, with_tail(batch, {n}));
  Tensor X = fortran_copy(Bs, with_tail(batch, {n, nrhs}));
  if (LU.is_meta() || X.numel() == 0) return left ? X : transpose(X, -2, -1);
  const int32_t* pv = piv.data_as<int32_t>();
  for (int64_t i = 0; i < piv.numel(); i++)  // getrs would swap rows out of bounds
    EMBER_CHECK(pv[i] >= 1 && pv[i] <= n, Runtime, op, ": pivots must be between 1 and ", n, ", but got ", pv[i]);
  visit_lapack(LU.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* a = LUf.data_as<T>();
    const int32_t* p = piv.data_as<int32_t>();
    T* x = X.data_as<T>();
    for_each_matrix(numel_of(batch), [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; b++) {
        T* xb = x + b * n * nrhs;
        if (conj_rhs)
          for (int64_t i = 0; i < n * nrhs; i++) xb[i] = conj_value(xb[i]);
        lapack::getrs<T>(trans, ni, nr, a + b * n * n, std::max(ni, 1), p + b * n, xb, std::max(ni, 1));
        if (conj_rhs)
          for (int64_t i = 0; i < n * nrhs; i++) xb[i] = conj_value(xb[i]);
      }
    });
  });
  return left ? X : transpose(X, -2, -1);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  const char* op = "linalg.lu_factor_ex";
  check_pivot(pivot, op);
  LuOut r = lu_factor_impl(A, op);
  if (check_errors) raise_for_info(r.info, op, singular_message);
  return {r.LU, r.pivots, r.info};
}
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex_out(const Tensor& LU, const Tensor& pivots, const Tensor& info,
                                                           const Tensor& A, bool pivot, bool check_errors) {
  auto r = linalg_lu_factor_ex(A, pivot, check_errors);
  write_out(LU, std::get<0>(r), "linalg.lu_factor_ex");
  write_out(pivots, std::get<1>(r), "linalg.lu_factor_ex");
  write_out(info, std::get<2>(r), "linalg.lu_factor_ex");
  return {LU, pivots, info};
}

std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) {
  const char* op = "linalg.lu_factor";
  check_pivot(pivot, op);
  LuOut r = lu_factor_impl(A, op);
  raise_for_info(r.info, op, [](int code) {
    return str_cat("U[", code, ",", code,
                   "] is zero and using it on lu_solve would result in a division by zero. "
                   "If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                   "linalg.lu_factor_ex(A, pivot)");
  });
  return {r.LU, r.pivots};
}
std::tuple<Tensor, Tensor> linalg_lu_factor_out(const Tensor& LU, const Tensor& pivots, const Tensor& A, bool pivot) {
  auto r = linalg_lu_factor(A, pivot);
  write_out(LU, std::get<0>(r), "linalg.lu_factor");
  write_out(pivots, std::get<1>(r), "linalg.lu_factor");
  return {LU, pivots};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) {
  const char* op = "linalg.lu";
  check_pivot(pivot, op);
  LuOut r = lu_factor_impl(A, op);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVec batch = batch_of(A.sizes());
  Tensor P = pivots_to_permutation(r.pivots, m, A.dtype());
  Tensor L = fortran_empty(with_tail(batch, {m, k}), A.dtype(), A.device());
  Tensor U = fortran_empty(with_tail(batch, {k, n}), A.dtype(), A.device());
  if (A.is_meta() || r.LU.numel() == 0) return {P, L, U};  // then L and U are empty too
  visit_lapack(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* lu = r.LU.data_as<T>();
    T* l = L.data_as<T>();
    T* u = U.data_as<T>();
    for (int64_t b = 0; b < r.info.numel(); b++) {
      const T* src = lu + b * m * n;  // column-major m x n
      for (int64_t j = 0; j < k; j++)
        for (int64_t i = 0; i < m; i++) l[b * m * k + j * m + i] = i > j ? src[j * m + i] : T(i == j ? 1 : 0);
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < k; i++) u[b * k * n + j * k + i] = i <= j ? src[j * m + i] : T(0);
    }
  });
  return {P, L, U};
}
std::tuple<Tensor, Tensor, Tensor> linalg_lu_out(const Tensor& P, const Tensor& L, const Tensor& U, const Tensor& A,
                                                 bool pivot) {
  auto r = linalg_lu(A, pivot);
  write_out(P, std::get<0>(r), "linalg.lu");
  write_out(L, std::get<1>(r), "linalg.lu");
  write_out(U, std::get<2>(r), "linalg.lu");
  return {P, L, U};
}

Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  return lu_solve_impl(LU, pivots, B, left, adjoint);
}
Tensor linalg_lu_solve_out(const Tensor& out, const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left,
                           bool adjoint) {
  return write_out(out, linalg_lu_solve(LU, pivots, B, left, adjoint), "linalg.lu_solve");
}

Tensor linalg_det(const Tensor& A) { return std::get<0>(det_impl(A, true, "linalg.det")); }
Tensor linalg_det_out(const Tensor& out, const Tensor& A) { return write_out(out, linalg_det(A), "linalg.det"); }

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  auto r = det_impl(A, false, "linalg.slogdet");
  return {std::get<1>(r), std::get<2>(r)};
}
std::tuple<Tensor, Tensor> linalg_slogdet_out(const Tensor& sign, const Tensor& logabsdet, const Tensor& A) {
  auto r = linalg_slogdet(A);
  write_out(sign, std::get<0>(r), "linalg.slogdet");
  write_out(logabsdet, std::get<1>(r), "linalg.slogdet");
  return {sign, logabsdet};
}

}  // namespace ember::ops
