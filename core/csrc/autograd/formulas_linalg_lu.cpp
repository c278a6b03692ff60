// Backward formulas of det, slogdet and the LU family (lu_factor, lu, lu_solve), with recorded ops so
// they differentiate again. det's gradient is the adjugate's (through the SVD for a singular input);
// slogdet's goes through the inverse.
#include "autograd/formulas_linalg_util.h"
#include "kernels/scalar_value.h"

namespace ember::ad {

using namespace linalg_util;

namespace {

// A scalar per matrix times each matrix.
Tensor per_matrix(const Tensor& c, const Tensor& m) { return unsqueeze(unsqueeze(c, -1), -1) * m; }

// prod_{j != i} s_j for each i, without dividing (a zero s_i stays exact).
Tensor products_of_others(const Tensor& s) {
  const int64_t n = s.size(-1);
  const Tensor one = ones_like(narrow(s, -1, 0, 1), ScalarType::Undefined, std::nullopt, false);
  const Tensor before = cumprod(cat({one, narrow(s, -1, 0, n - 1)}, -1), -1, ScalarType::Undefined);
  const Tensor after =
      flip(cumprod(flip(cat({narrow(s, -1, 1, n - 1), one}, -1), {-1}), -1, ScalarType::Undefined), {-1});
  return before * after;
}

}  // namespace

// d det = det tr(A^-1 dA): gA = g conj(det) A^-H = g adj(A)^H. A singular matrix has no inverse but
// an adjugate: with A = U S V^H, adj(A)^H = conj(det U det V^H) U diag(prod_{j != i} s_j) V^H.
Tensor det_backward(const Tensor& grad, const Tensor& A, const Tensor& det) {
  if (A.numel() == 0) return zeros_of(A);
  const bool invertible = scalar_value(all(ne(det, wrapped_scalar(Scalar(0.0))), std::nullopt, false)).to_bool();
  if (invertible) return per_matrix(grad * cj(det), mh(linalg_inv(A)));
  const auto usv = linalg_svd(A, false, std::nullopt);
  const Tensor &U = std::get<0>(usv), &S = std::get<1>(usv), &Vh = std::get<2>(usv);
  const Tensor phase = cj(linalg_det(U) * linalg_det(Vh));
  return per_matrix(grad * phase, matmul(U * unsqueeze(products_of_others(S), -2), Vh));
}

// d log|det| = Re tr(A^-1 dA), d sign = i sign Im tr(A^-1 dA): gA = c A^-H with
// c = g_logabsdet - i Im(conj(g_sign) sign) (the sign's term only for complex A).
Tensor slogdet_backward(const Tensor& grad_sign, const Tensor& grad_logabsdet, const Tensor& A, const Tensor& sign) {
  Tensor c = grad_logabsdet;
  if (is_complex(A.dtype())) c = c - times_i(imag(cj(grad_sign) * sign));
  return per_matrix(c, mh(linalg_inv(A)));
}

namespace {

// The square case without P: A = L U, gA = L^-H [tril(L^H gL, -1) + triu(gU U^H)] U^-H.
Tensor lu_backward_square(const Tensor& gL, const Tensor& gU, const Tensor& L, const Tensor& U) {
  const Tensor X = tril(matmul(mh(L), gL), -1) + triu(matmul(gU, mh(U)), 0);
  const Tensor left = linalg_solve_triangular(mh(L), X, true, true, true);
  return linalg_solve_triangular(mh(U), left, false, false, false);
}

}  // namespace

// A = P L U, L unit lower (m x k), U upper (k x n). A tall A is [L1; L2] U with L2 = A2 U^-1, a wide
// one L [U1 | U2] with U2 = L^-1 A2: the square part's gradient gets the extra term through U (L).
Tensor lu_backward(const Tensor& gL, const Tensor& gU, const Tensor& P, const Tensor& L, const Tensor& U) {
  const int64_t m = L.size(-2), n = U.size(-1);
  if (m == n) return matmul(P, lu_backward_square(gL, gU, L, U));
  if (m > n) {
    const Tensor L1 = narrow(L, -2, 0, n), L2 = narrow(L, -2, n, m - n);
    const Tensor gA2 = linalg_solve_triangular(mh(U), narrow(gL, -2, n, m - n), false, false, false);
    const Tensor gA1 = lu_backward_square(narrow(gL, -2, 0, n), gU - matmul(mh(L2), gA2), L1, U);
    return matmul(P, cat({gA1, gA2}, -2));
  }
  const Tensor U1 = narrow(U, -1, 0, m), U2 = narrow(U, -1, m, n - m);
  const Tensor gA2 = linalg_solve_triangular(mh(L), narrow(gU, -1, m, n - m), true, true, true);
  const Tensor gA1 = lu_backward_square(gL - matmul(gA2, mh(U2)), narrow(gU, -1, 0, m), L, U1);
  return matmul(P, cat({gA1, gA2}, -1));
}

Tensor lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots, bool pivot) {
  (void)pivot;  // pivot=False is refused by the forward on the CPU
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const Tensor P = linalg::pivots_to_permutation(pivots, m, LU.dtype());
  const Tensor L = tril(narrow(LU, -1, 0, k), -1) + ops::eye(m, k, linalg::real_dtype(LU.dtype()), LU.device(), false);
  const Tensor U = triu(narrow(LU, -2, 0, k), 0);
  return lu_backward(tril(narrow(grad, -1, 0, k), -1), triu(narrow(grad, -2, 0, k), 0), P, L, U);
}

// X solves A X = B, A^H X = B, X A = B or X A^H = B for A = P L U packed in LU:
// gB = the solve with A^H in place of A, gA as for linalg_solve, then carried to L and U.
Tensor lu_solve_backward_B(const Tensor& grad, const Tensor& LU, const Tensor& pivots, bool left, bool adjoint) {
  return linalg_lu_solve(LU, pivots, grad, left, !adjoint);
}

Tensor lu_solve_backward_LU(const Tensor& grad, const Tensor& LU, const Tensor& pivots, const Tensor& X, bool left,
                            bool adjoint) {
  const int64_t n = LU.size(-1);
  const Tensor gB = lu_solve_backward_B(grad, LU, pivots, left, adjoint);
  Tensor gA =
      left ? (adjoint ? -matmul(X, mh(gB)) : -matmul(gB, mh(X))) : (adjoint ? -matmul(mh(gB), X) : -matmul(mh(X), gB));
  const Tensor P = linalg::pivots_to_permutation(pivots, n, LU.dtype());
  const Tensor L = tril(LU, -1) + eye_like(n, LU);
  const Tensor U = triu(LU, 0);
  const Tensor PtgA = matmul(mh(P), gA);
  return tril(matmul(PtgA, mh(U)), -1) + triu(matmul(mh(L), PtgA), 0);
}

}  // namespace ember::ad
