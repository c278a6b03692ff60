// linalg.matrix_exp: scaling and squaring of a Taylor approximant, matrix by matrix (each gets its
// own scaling from its 1-norm); and its gradient, the block-matrix identity, which is composite.
#include <cmath>

#include "autograd/formulas.h"
#include "composite/linalg_composite.h"
#include "iter/copy.h"

namespace ember::ops {

namespace {

// The scaled matrix's 1-norm bound and the Taylor degree that reaches the dtype's precision there:
// the remainder of exp's series past degree m at norm 1/2 is below 0.5^(m+1)/(m+1)!.
constexpr double kTheta = 0.5;
int taylor_degree(ScalarType t) { return t == ScalarType::Float32 || t == ScalarType::Complex64 ? 8 : 13; }

template <class T>
double one_norm(const T* a, int64_t n) {  // the largest column sum of |a|, a row-major n x n
  double best = 0;
  for (int64_t j = 0; j < n; j++) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += std::abs(a[i * n + j]);
    if (!(s <= best)) best = s;  // NaN propagates
  }
  return best;
}

double matrix_one_norm(const Tensor& m) {  // m: a contiguous n x n matrix
  return visit_dtype(m.dtype(), [&](auto z) -> double {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<T> || is_complex_v<T>)
      return one_norm(m.data_as<T>(), m.size(-1));
    else
      EMBER_FAIL(Type, "linalg.matrix_exp: unsupported dtype ", dtype_name(m.dtype()));
  });
}

Tensor exp_one(const Tensor& a, const Tensor& eye, int degree) {
  const double norm = matrix_one_norm(a);
  if (!std::isfinite(norm)) return full_like(a, Scalar(std::nan("")), ScalarType::Undefined, std::nullopt, false);
  const int s = norm > kTheta ? int(std::ceil(std::log2(norm / kTheta))) : 0;
  const Tensor x = s > 0 ? mul(a, wrapped_scalar(Scalar(std::ldexp(1.0, -s)))) : a;
  Tensor e = eye;  // Horner: I + x (I + x/2 (I + x/3 (...)))
  for (int k = degree; k >= 1; k--) e = addmm(eye, x, e, Scalar(1.0), Scalar(1.0 / k));
  for (int i = 0; i < s; i++) e = mm(e, e);
  return e;
}

}  // namespace

Tensor linalg_matrix_exp(const Tensor& A) {
  ad::check_square(A, "linalg.matrix_exp");
  ad::check_float_or_complex(A, "linalg.matrix_exp");
  Tensor out = ember::empty(A.sizes(), A.dtype(), A.device());
  if (A.is_meta() || A.numel() == 0) return out;
  const int64_t n = A.size(-1);
  const Tensor batch = reshape(ember::contiguous(A), DimVec{-1, n, n});
  const Tensor flat = reshape(out, DimVec{-1, n, n});
  const Tensor eye = ops::eye(n, n, A.dtype(), A.device(), false);
  const int degree = taylor_degree(A.dtype());
  for (int64_t b = 0; b < batch.size(0); b++)
    ember::copy_(select(flat, 0, b), exp_one(select(batch, 0, b), eye, degree));
  return out;
}

// d<G, exp(A)> = the upper right block of exp([[A^H, G], [0, A^H]]) (Najfeld and Havel): exact,
// and made of matrix_exp itself, so it differentiates again.
Tensor _linalg_matrix_exp_backward(const Tensor& grad, const Tensor& A) {
  const int64_t n = A.size(-1);
  const Tensor AH = ad::mH(A);
  const Tensor top = ad::cat({AH, grad}, -1);
  const Tensor bottom = ad::cat({ad::zeros_like(AH, ScalarType::Undefined, std::nullopt, false), AH}, -1);
  const Tensor e = ad::linalg_matrix_exp(ad::cat({top, bottom}, -2));
  return ad::narrow(ad::narrow(e, -2, 0, n), -1, n, n);
}

}  // namespace ember::ops
