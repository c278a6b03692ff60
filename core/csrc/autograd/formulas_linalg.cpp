// Backward formulas of the factorizations and solves (cholesky, inv, solve, solve_triangular) and of
// the spectral decompositions (svd, svdvals, eigh, eigvalsh). Each is written with recorded ops, so
// it differentiates again. Notation: X^H is mh(X); a gradient g of a complex output follows the
// conjugate Wirtinger convention, as everywhere in ember.
#include "autograd/formulas_linalg_util.h"

namespace ember::ad {

using namespace linalg_util;

namespace {

// 1 / (x_j - x_i) off the diagonal and 0 on it, for a batch of vectors x (real).
Tensor inverse_gaps(const Tensor& x) {
  const Tensor I = eye_like(x.size(-1), x);
  const Tensor gaps = unsqueeze(x, -2) - unsqueeze(x, -1);
  return (1.0 - I) / (gaps + I);
}

// The phase check of complex singular/eigen vectors: the loss may not depend on the phase, which
// shows as a nonzero imaginary part of these diagonal terms.
void check_phase_invariant(const Tensor& imag_diag, const char* what) {
  const bool ok = ops::allclose(imag_diag, ops::zeros_like(imag_diag, ScalarType::Undefined, std::nullopt, false), 1e-2,
                                1e-2, false);
  EMBER_CHECK(ok, Runtime, what);
}

}  // namespace

// A = L L^H: gA = L^-H Phi(L^H gL) L^-1 (Phi: lower triangle, diagonal halved), made Hermitian.
Tensor cholesky_backward(const Tensor& grad, const Tensor& L, bool upper) {
  const Tensor low = upper ? mh(L) : L;
  const Tensor g = upper ? mh(grad) : grad;
  const Tensor P = matmul(mh(low), g);
  const Tensor phi = tril(P, 0) - 0.5 * (P * eye_like(P.size(-1), P));
  const Tensor left = linalg_solve_triangular(mh(low), phi, true, true, false);
  const Tensor gA = linalg_solve_triangular(low, left, false, false, false);
  return 0.5 * (gA + mh(gA));
}

Tensor inv_backward(const Tensor& grad, const Tensor& inverse) {
  const Tensor h = mh(inverse);
  return -matmul(matmul(h, grad), h);
}

// X = A^-1 B (left) or B A^-1: gB = A^-H g (or g A^-H), gA = -gB X^H (or -X^H gB).
Tensor solve_backward_B(const Tensor& grad, const Tensor& A, bool left) { return linalg_solve(mh(A), grad, left); }

Tensor solve_backward_A(const Tensor& grad, const Tensor& A, const Tensor& B, const Tensor& X, bool left) {
  const Tensor gB = solve_backward_B(grad, A, left);
  if (linalg::is_vector_rhs(A, B)) return -(unsqueeze(gB, -1) * unsqueeze(cj(X), -2));
  return left ? -matmul(gB, mh(X)) : -matmul(mh(X), gB);
}

Tensor solve_triangular_backward_B(const Tensor& grad, const Tensor& A, bool upper, bool left, bool unitriangular) {
  return linalg_solve_triangular(mh(A), grad, !upper, left, unitriangular);
}

Tensor solve_triangular_backward_A(const Tensor& grad, const Tensor& A, const Tensor& X, bool upper, bool left,
                                   bool unitriangular) {
  const Tensor gB = solve_triangular_backward_B(grad, A, upper, left, unitriangular);
  const Tensor gA = left ? -matmul(gB, mh(X)) : -matmul(mh(X), gB);
  // Only the triangle the solve reads has a gradient (not the diagonal when it is taken as ones).
  return upper ? triu(gA, unitriangular ? 1 : 0) : tril(gA, unitriangular ? -1 : 0);
}

// A = U diag(S) V^H with U (m x k), V (n x k). With F_ij = 1 / (S_j^2 - S_i^2):
// gA = U [(J + J^H) S + S (K + K^H) + diag(gS) + i Im(diag(U^H gU) - diag(V^H gV)) / 2S] V^H
//      + (I - U U^H) gU S^-1 V^H + U S^-1 gV^H (I - V V^H),   J = F o U^H gU, K = F o V^H gV.
Tensor svd_backward(const Tensor& gU_in, const Tensor& gS, const Tensor& gVh_in, const Tensor& U_in, const Tensor& S,
                    const Tensor& Vh_in, bool full_matrices) {
  const int64_t k = S.size(-1);
  const int64_t m = U_in.size(-2), n = Vh_in.size(-1);
  if (k == 0)
    return ops::zeros(linalg::with_tail(linalg::batch_of(U_in.sizes()), {m, n}), U_in.dtype(), U_in.device(), false);
  const bool narrow_k = full_matrices && (m != k || n != k);
  const Tensor U = narrow_k ? narrow(U_in, -1, 0, k) : U_in;
  const Tensor Vh = narrow_k ? narrow(Vh_in, -2, 0, k) : Vh_in;
  const Tensor gU = narrow_k ? narrow(gU_in, -1, 0, k) : gU_in;
  const Tensor gVh = narrow_k ? narrow(gVh_in, -2, 0, k) : gVh_in;
  const Tensor UhgU = matmul(mh(U), gU);
  const Tensor VhgV = matmul(Vh, mh(gVh));
  const bool complex = is_complex(U.dtype());
  if (complex)
    check_phase_invariant(imag(diag_of(UhgU) + diag_of(VhgV)),
                          "linalg_svd_backward: The singular vectors in the complex case are specified up to "
                          "multiplication by e^{i phi}. The specified loss function depends on this phase term, "
                          "making it ill-defined.");
  const Tensor F = inverse_gaps(S * S);
  const Tensor J = F * UhgU, K = F * VhgV;
  Tensor inner = (J + mh(J)) * unsqueeze(S, -2) + unsqueeze(S, -1) * (K + mh(K)) + diag_embed(gS);
  if (complex) inner = inner + diag_embed(times_i(imag(diag_of(UhgU) - diag_of(VhgV)) / (2.0 * S)));
  Tensor gA = matmul(matmul(U, inner), Vh);
  const Tensor Sinv = 1.0 / S;
  if (m > k) gA = gA + matmul((gU - matmul(U, UhgU)) * unsqueeze(Sinv, -2), Vh);
  if (n > k) gA = gA + matmul(U, unsqueeze(Sinv, -1) * (gVh - matmul(mh(VhgV), Vh)));
  return gA;
}

Tensor svdvals_backward(const Tensor& grad, const Tensor& A) {
  const auto usv = linalg_svd(A, false, std::nullopt);
  return matmul(std::get<0>(usv) * unsqueeze(grad, -2), std::get<2>(usv));
}

// A = V diag(L) V^H: gA = V [diag(gL) + F o skew(V^H gV) / 2] V^H with F_ij = 1 / (L_j - L_i).
Tensor eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  const Tensor VhgV = matmul(mh(V), gV);
  if (is_complex(V.dtype()))
    check_phase_invariant(imag(diag_of(VhgV)),
                          "linalg_eigh_backward: The eigenvectors in the complex case are specified up to "
                          "multiplication by e^{i phi}. The specified loss function depends on this quantity, so it "
                          "is ill-defined.");
  const Tensor inner = inverse_gaps(L) * (0.5 * (VhgV - mh(VhgV))) + diag_embed(gL);
  return matmul(matmul(V, inner), mh(V));
}

Tensor eigvalsh_backward(const Tensor& grad, const Tensor& A, const std::string& UPLO) {
  const Tensor V = std::get<1>(linalg_eigh(A, UPLO));
  return matmul(V * unsqueeze(grad, -2), mh(V));
}

}  // namespace ember::ad
