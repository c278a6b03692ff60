// The composite linalg functions over the LAPACK-backed ops (svd, svdvals, eigh, eigvalsh, inv,
// solve): pinv, matrix_rank, cond, tensorinv, tensorsolve, and the singular values and inverse the
// other composite files use. Checks and messages follow PyTorch's.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "autograd/formulas.h"
#include "composite/linalg_composite.h"

namespace ember::ad {

Tensor singular_values(const Tensor& A, const char* fn) {
  check_float_or_complex(A, fn);
  return linalg_svdvals(A, std::nullopt);
}

Tensor inverse(const Tensor& A, const char* fn) {
  check_float_or_complex(A, fn);
  return linalg_inv(A);
}

namespace {

// The product of sizes[from, to), and those sizes as a DimVec.
int64_t size_prod(const DimVec& sizes, int64_t from, int64_t to) {
  int64_t p = 1;
  for (int64_t i = from; i < to; i++) p *= sizes[i];
  return p;
}
DimVec slice(const DimVec& sizes, int64_t from, int64_t to) {
  DimVec out;
  for (int64_t i = from; i < to; i++) out.push_back(sizes[i]);
  return out;
}

void check_matrix(const Tensor& A, bool hermitian, const char* fn) {
  EMBER_CHECK(A.dim() >= 2, Runtime, fn, ": The input tensor A must have at least 2 dimensions.");
  check_float_or_complex(A, fn);
  if (hermitian) check_square(A, fn);
}

// The cutoff below which the values s (on the last dim: singular values, or |eigenvalues|) of an
// m x n A count as zero: max(atol, rtol * largest), atol and rtol numbers or tensors that broadcast
// over the batch; rtol defaults to eps * max(m, n), or to 0 where atol > 0. Shaped to compare with s.
Tensor cutoff_for(const Tensor& s, const Tensor& atol, const Tensor& rtol, int64_t m, int64_t n) {
  const double eps = s.dtype() == ScalarType::Float32 ? double(std::numeric_limits<float>::epsilon())
                                                      : std::numeric_limits<double>::epsilon();
  const Tensor fallback = num(eps * double(std::max(m, n)));
  const Tensor r = rtol.defined() ? rtol : atol.defined() ? where(gt(atol, num(0.0)), num(0.0), fallback) : fallback;
  const Tensor largest =
      s.size(-1) == 0 ? zeros_sized(slice(s.sizes(), 0, s.dim() - 1), s) : amax(s, DimVec{-1}, false);
  Tensor cutoff = mul(largest, r);
  if (atol.defined()) cutoff = maximum(cutoff, atol);
  return unsqueeze(cutoff, -1);
}

// 1/v where keep, else 0; the dropped values become 1 before the division, so their unused
// reciprocals put no inf or NaN into the gradient.
Tensor kept_reciprocal(const Tensor& v, const Tensor& keep) {
  const Tensor one = ones_like(v, ScalarType::Undefined, std::nullopt, false);
  return where(keep, div(one, where(keep, v, one), std::nullopt),
               zeros_like(v, ScalarType::Undefined, std::nullopt, false));
}

}  // namespace

}  // namespace ember::ad

namespace ember::ops {

Tensor linalg_matrix_rank(const Tensor& A, const Tensor& atol, const Tensor& rtol, bool hermitian) {
  ad::check_matrix(A, hermitian, "linalg.matrix_rank");
  const Tensor s = hermitian ? ad::abs(ad::linalg_eigvalsh(A, "L")) : ad::singular_values(A, "linalg.matrix_rank");
  const Tensor cutoff = ad::cutoff_for(s, atol, rtol, A.size(-2), A.size(-1));
  return ad::sum(ad::gt(s, cutoff), DimVec{-1}, false, ScalarType::Int64);
}

Tensor linalg_matrix_rank_tol(const Tensor& A, double tol, bool hermitian) {
  return linalg_matrix_rank(A, wrapped_scalar(Scalar(tol)), wrapped_scalar(Scalar(0.0)), hermitian);
}

// V diag(1/s) U^H over the singular values above the cutoff; Q diag(1/l) Q^H for hermitian A.
Tensor linalg_pinv(const Tensor& A, const Tensor& atol, const Tensor& rtol, bool hermitian) {
  const char* fn = "linalg.pinv";
  ad::check_matrix(A, hermitian, fn);
  if (A.numel() == 0) {
    DimVec shape = A.sizes();
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    return ad::zeros(shape, A.dtype(), A.device(), false);
  }
  using ad::operator*;
  const int64_t m = A.size(-2), n = A.size(-1);
  if (hermitian) {
    auto [L, Q] = ad::linalg_eigh(A, "L");
    const Tensor keep = ad::gt(ad::abs(L), ad::cutoff_for(ad::abs(L), atol, rtol, m, n));
    return ad::matmul(Q * ad::unsqueeze(ad::kept_reciprocal(L, keep), -2), ad::mH(Q));
  }
  auto [U, S, Vh] = ad::linalg_svd(A, false, std::nullopt);
  const Tensor keep = ad::gt(S, ad::cutoff_for(S, atol, rtol, m, n));
  return ad::matmul(ad::mH(Vh) * ad::unsqueeze(ad::kept_reciprocal(S, keep), -2), ad::mH(U));
}

Tensor linalg_pinv_rcond(const Tensor& A, double rcond, bool hermitian) {
  return linalg_pinv(A, wrapped_scalar(Scalar(0.0)), wrapped_scalar(Scalar(rcond)), hermitian);
}

// cond: the ratio of extreme singular values for p None/2/-2 (any shape); otherwise
// norm(A, p) * norm(A^-1, p) for square A, inf where A is singular.
// As PyTorch (NumPy leaves it undefined): the condition number of an empty matrix is 0.
Tensor cond_of_empty(const Tensor& A) {
  return ad::zeros(DimVec(A.sizes().begin(), A.sizes().end() - 2), to_real(A.dtype()), A.device(), false);
}

Tensor cond_by_inverse(const Tensor& A, const std::function<Tensor(const Tensor&)>& norm) {
  ad::check_square(A, "linalg.cond");
  ad::check_float_or_complex(A, "linalg.cond");
  if (A.numel() == 0) return cond_of_empty(A);
  auto [inv, info] = ad::linalg_inv_ex(A, false);
  Tensor r = ad::mul(norm(A), norm(inv));
  // A singular A, and a NaN product (a NaN in A, or 0 * inf), give inf as in torch.
  return ad::where(ad::logical_or(ad::gt(info, ad::num(0.0)), ad::isnan(r)),
                   ad::full_like(r, Scalar(INFINITY), ScalarType::Undefined, std::nullopt, false), r);
}

// A complex p printed as Python does, e.g. 2j or (1+2j), for the error message.
static std::string complex_str(const Scalar& p) {
  auto num = [](double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  const complex128 z = p.to_complex();
  if (z.real() == 0) return num(z.imag()) + "j";
  return "(" + num(z.real()) + (z.imag() < 0 ? "" : "+") + num(z.imag()) + "j)";
}

Tensor linalg_cond(const Tensor& A, const std::optional<Scalar>& p) {
  EMBER_CHECK(!p || !p->is_complex(), Runtime, "linalg.cond got an invalid norm type: ", complex_str(*p),
              " (p must be a real number or 'fro' / 'nuc')");
  const double v = p ? p->to_double() : 2.0;
  if (std::fabs(v) == 2) {
    EMBER_CHECK(A.dim() >= 2, Runtime, "linalg.cond: The input tensor A must have at least 2 dimensions.");
    ad::check_float_or_complex(A, "linalg.cond");
    if (A.numel() == 0) return cond_of_empty(A);
    Tensor s = ad::singular_values(A, "linalg.cond");
    Tensor hi = ad::narrow(s, -1, 0, 1), lo = ad::narrow(s, -1, s.size(-1) - 1, 1);
    return ad::squeeze(v > 0 ? ad::div(hi, lo, std::nullopt) : ad::div(lo, hi, std::nullopt), DimVec{-1});
  }
  EMBER_CHECK(std::fabs(v) == 1 || std::isinf(v), Runtime, "linalg.cond got an invalid norm type: ", v);
  return cond_by_inverse(
      A, [&](const Tensor& M) { return ad::matrix_norm_ord_impl(M, *p, {-2, -1}, false, ScalarType::Undefined); });
}

Tensor linalg_cond_str(const Tensor& A, const std::string& p) {
  EMBER_CHECK(p == "fro" || p == "nuc", Runtime, "linalg.cond got an invalid norm type: ", p);
  if (p == "nuc") {
    // sum(s) * sum(1 / s) from the singular values, as torch: a singular A gives inf (nan when A = 0)
    // or a large finite number when rounding leaves its smallest singular value nonzero.
    ad::check_square(A, "linalg.cond");
    ad::check_float_or_complex(A, "linalg.cond");
    if (A.numel() == 0) return cond_of_empty(A);
    Tensor s = ad::singular_values(A, "linalg.cond");
    return ad::mul(ad::sum(s, DimVec{-1}, false, ScalarType::Undefined),
                   ad::sum(ad::reciprocal(s), DimVec{-1}, false, ScalarType::Undefined));
  }
  return cond_by_inverse(
      A, [&](const Tensor& M) { return ad::matrix_norm_str_impl(M, p, {-2, -1}, false, ScalarType::Undefined); });
}

Tensor linalg_tensorinv(const Tensor& A, int64_t ind) {
  EMBER_CHECK(ind > 0, Runtime, "Expected a strictly positive integer for 'ind', but got ", ind);
  EMBER_CHECK(ind <= A.dim(), Runtime, "linalg.tensorinv: ind (", ind, ") must not exceed A's dims (", A.dim(), ")");
  const DimVec& s = A.sizes();
  const int64_t rows = ad::size_prod(s, 0, ind), cols = ad::size_prod(s, ind, A.dim());
  EMBER_CHECK(rows == cols, Runtime,
              "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
              "prod(self.shape[:ind]), but got ",
              cols, " != ", rows);
  DimVec out = ad::slice(s, ind, A.dim());
  for (int64_t i = 0; i < ind; i++) out.push_back(s[i]);
  return ad::reshape(ad::inverse(ad::reshape(A, DimVec{rows, cols}), "linalg.tensorinv"), out);
}

Tensor linalg_tensorsolve(const Tensor& A, const Tensor& B, const std::optional<DimVec>& dims) {
  Tensor a = A;
  if (dims && !dims->empty()) {
    DimVec dest;
    for (size_t i = 0; i < dims->size(); i++) dest.push_back(A.dim() - int64_t(dims->size()) + int64_t(i));
    a = ad::movedim(A, *dims, dest);
  }
  EMBER_CHECK(B.dim() <= a.dim(), Runtime, "linalg.tensorsolve: B has more dims (", B.dim(), ") than A (", a.dim(),
              ")");
  // As in torch and NumPy only the element counts must agree: A's first B.dim() dims hold B.numel()
  // elements (not necessarily B's shape) and its other dims (X's shape) as many.
  const DimVec& s = a.sizes();
  const int64_t rows = ad::size_prod(s, 0, B.dim()), cols = ad::size_prod(s, B.dim(), a.dim());
  EMBER_CHECK(rows == B.numel(), Runtime, "linalg.tensorsolve: A's leading dims ", ad::slice(s, 0, B.dim()),
              " (its first B.dim() = ", B.dim(), " dims", dims && !dims->empty() ? ", after moving dims" : "",
              ") hold ", rows, " elements, but B of shape ", B.sizes(), " holds ", B.numel());
  EMBER_CHECK(rows == cols, Runtime,
              "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
              "prod(self.shape[:other.ndim]), but got ",
              cols, " != ", rows);
  const Tensor x = ad::linalg_solve(ad::reshape(a, DimVec{rows, cols}), ad::reshape(B, DimVec{rows}), true);
  return ad::reshape(x, ad::slice(s, B.dim(), a.dim()));
}

}  // namespace ember::ops
