// Backward formulas of qr, eig / eigvals, lstsq and householder_product, with recorded ops so they
// differentiate again. Where PyTorch refuses a derivative (qr with mode='r', or 'complete' with
// more rows than columns; a complex eig loss that depends on the eigenvectors' phases) so do these.
#include "autograd/formulas_linalg_util.h"

namespace ember::ad {

using namespace linalg_util;

namespace {

Tensor real_part(const Tensor& t) { return is_complex(t.dtype()) ? real(t) : t; }

// A = Q R with Q (m x n, orthonormal columns), R (n x n upper): gA = (gQ + Q W) R^-H where W copies
// the strict upper triangle of N = gR R^H - Q^H gQ onto the lower one (conjugated), diagonal real.
Tensor qr_backward_square_r(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  const Tensor N = matmul(gR, mh(R)) - matmul(mh(Q), gQ);
  const Tensor up = triu(N, 1);
  const Tensor W = up + mh(up) + diag_embed(real_part(diag_of(N)));
  return linalg_solve_triangular(mh(R), gQ + matmul(Q, W), false, false, false);
}

}  // namespace

Tensor qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R, const std::string& mode) {
  EMBER_CHECK(mode != "r", Runtime,
              "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
              "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = Q.size(-2), n = R.size(-1);
  EMBER_CHECK(mode != "complete" || m <= n, Runtime,
              "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  if (m >= n) return qr_backward_square_r(gQ, gR, Q, R);
  // m < n: A = Q [R1 | R2] with A1 = Q R1 square and R2 = Q^H A2, so Q also receives A2 gR2^H.
  const Tensor R1 = narrow(R, -1, 0, m), gR1 = narrow(gR, -1, 0, m), gR2 = narrow(gR, -1, m, n - m);
  const Tensor A2 = matmul(Q, narrow(R, -1, m, n - m));
  const Tensor gA1 = qr_backward_square_r(gQ + matmul(A2, mh(gR2)), gR1, Q, R1);
  return cat({gA1, matmul(Q, gR2)}, -1);
}

// A V = V diag(L), columns of V of unit norm: gA = V^-H [diag(gL) + (V^H gV - V^H V diag(Re diag(V^H gV)))
// / conj(L_j - L_i)] V^H, real for a real A.
Tensor eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V, ScalarType A_dtype) {
  const Tensor VhgV = matmul(mh(V), gV);
  const bool ok = ops::allclose(
      imag(diag_of(VhgV)), ops::zeros(L.sizes(), linalg::real_dtype(L.dtype()), L.device(), false), 1e-2, 1e-2, false);
  EMBER_CHECK(ok, Runtime,
              "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
              "multiplication by e^{i phi}. The specified loss function depends on this quantity, so it is "
              "ill-defined.");
  const int64_t n = L.size(-1);
  const Tensor I = eye_like(n, L);
  const Tensor proj = VhgV - matmul(mh(V), V) * unsqueeze(real(diag_of(VhgV)), -2);
  const Tensor gaps = cj(unsqueeze(L, -2) - unsqueeze(L, -1)) + I;
  const Tensor inner = proj * (1.0 - I) / gaps + diag_embed(gL);
  const Tensor gA = linalg_solve(mh(V), matmul(inner, mh(V)), true);
  return is_complex(A_dtype) ? gA : real(gA);
}

Tensor eigvals_backward(const Tensor& grad, const Tensor& A) {
  const auto lv = linalg_eig(A);
  const Tensor& V = std::get<1>(lv);
  const Tensor gA = linalg_solve(mh(V), matmul(diag_embed(grad), mh(V)), true);
  return is_complex(A.dtype()) ? gA : real(gA);
}

// X = argmin |A X - B| (full rank). m >= n: X = (A^H A)^-1 A^H B, with Y = (A^H A)^-1 gX:
// gA = (B - A X) Y^H - A Y X^H, gB = A Y. m < n (least norm): X = A^H Z, Z = (A A^H)^-1 B, with
// W = (A A^H)^-1 A gX: gA = Z gX^H - W X^H - Z W^H A, gB = W. The residuals |A x_j - b_j|^2 add
// 2 (R o g_r) X^H to gA and -2 R o g_r to gB (R = A X - B; A^H R = 0 removes the dX term); the
// singular values add svdvals' gradient.
Tensor lstsq_backward(const Tensor& grad, const Tensor& grad_residuals, const Tensor& grad_singular_values,
                      const Tensor& A, const Tensor& B, const Tensor& X, bool for_A) {
  const bool vector = B.dim() == A.dim() - 1;
  const Tensor Bm = vector ? unsqueeze(B, -1) : B;
  const Tensor Xm = vector ? unsqueeze(X, -1) : X;
  const Tensor g = vector ? unsqueeze(grad, -1) : grad;
  Tensor gA, gB;
  if (A.size(-2) >= A.size(-1)) {
    const Tensor Y = linalg_solve(matmul(mh(A), A), g, true);
    gB = matmul(A, Y);
    if (for_A) gA = matmul(Bm - matmul(A, Xm), mh(Y)) - matmul(gB, mh(Xm));
  } else {
    const Tensor AAh = matmul(A, mh(A));
    const Tensor W = linalg_solve(AAh, matmul(A, g), true);
    gB = W;
    if (for_A) {
      const Tensor Z = linalg_solve(AAh, Bm, true);
      gA = matmul(Z, mh(g)) - matmul(W, mh(Xm)) - matmul(matmul(Z, mh(W)), A);
    }
  }
  if (grad_residuals.numel() > 0) {
    const Tensor gr = unsqueeze(vector ? unsqueeze(grad_residuals, -1) : grad_residuals, -2);
    const Tensor Rg = (matmul(A, Xm) - Bm) * (2.0 * gr);
    if (for_A)
      gA = gA + matmul(Rg, mh(Xm));
    else
      gB = gB - Rg;
  }
  if (for_A && grad_singular_values.numel() > 0) gA = gA + svdvals_backward(grad_singular_values, A);
  if (for_A) return gA;
  return vector ? squeeze(gB, DimVec{-1}) : gB;
}

// Q = (H_1 ... H_k)[:, :n], H_i = I - tau_i v_i v_i^H with v_i column i of input below the diagonal
// and 1 on it. With gH_i = (H_1..H_{i-1})^H gQ E^H (H_{i+1}..H_k)^H: gtau_i = -v_i^H gH_i v_i and
// gv_i = -(conj(tau_i) gH_i + tau_i gH_i^H) v_i, kept below the diagonal.
Tensor householder_product_backward(const Tensor& grad, const Tensor& input, const Tensor& tau, bool for_input) {
  const int64_t m = input.size(-2), n = input.size(-1), k = tau.size(-1);
  if (k == 0) return for_input ? zeros_of(input) : zeros_of(tau);
  const Tensor Im = ops::eye(m, std::nullopt, input.dtype(), input.device(), false);
  const Tensor V = tril(input, -1) + ops::eye(m, n, linalg::real_dtype(input.dtype()), input.device(), false);
  std::vector<Tensor> vs, taus, H;
  for (int64_t i = 0; i < k; i++) {
    vs.push_back(narrow(V, -1, i, 1));
    taus.push_back(unsqueeze(unsqueeze(select(tau, -1, i), -1), -1));
    H.push_back(Im - taus[i] * matmul(vs[i], mh(vs[i])));
  }
  std::vector<Tensor> prefix{Im}, suffix(k + 1);
  for (int64_t i = 0; i < k; i++) prefix.push_back(matmul(prefix[i], H[i]));
  suffix[k] = Im;
  for (int64_t i = k - 1; i >= 0; i--) suffix[i] = matmul(H[i], suffix[i + 1]);
  const Tensor E = ops::eye(m, n, input.dtype(), input.device(), false);
  const Tensor gQ = matmul(grad, transpose(E, -2, -1));
  std::vector<Tensor> gv, gtau;
  for (int64_t i = 0; i < k; i++) {
    const Tensor gH = matmul(matmul(mh(prefix[i]), gQ), mh(suffix[i + 1]));
    if (for_input)
      gv.push_back(-(cj(taus[i]) * matmul(gH, vs[i]) + taus[i] * matmul(mh(gH), vs[i])));
    else
      gtau.push_back(-squeeze(matmul(matmul(mh(vs[i]), gH), vs[i]), DimVec{-2, -1}));
  }
  if (!for_input) return stack(gtau, -1);
  Tensor G = cat(gv, -1);
  if (n > k) G = cat({G, zeros_sized(linalg::with_tail(linalg::batch_of(G.sizes()), {m, n - k}), G)}, -1);
  return tril(G, -1);
}

}  // namespace ember::ad
