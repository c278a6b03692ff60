// Composite linalg products (core/ops/linalg_composite.yaml): cross, vecdot, diagonal, vander,
// multi_dot (in the cheapest order) and matrix_power, with recorded (ad::) ops; the shared checks.
#include <limits>
#include <vector>

#include "autograd/formulas.h"
#include "composite/linalg_composite.h"

namespace ember::ad {

Tensor mH(const Tensor& A) { return cj(transpose(A, -2, -1)); }

void check_float_or_complex(const Tensor& A, const char* fn) {
  EMBER_CHECK(is_floating(A.dtype()) || is_complex(A.dtype()), Runtime, fn,
              ": Expected a floating point or complex "
              "tensor as input. Got ",
              dtype_name(A.dtype()));
}

void check_square(const Tensor& A, const char* fn) {
  EMBER_CHECK(A.dim() >= 2, Runtime, fn, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(A.size(-1) == A.size(-2), Runtime, fn, ": A must be batches of square matrices, but they are ",
              A.size(-2), " by ", A.size(-1), " matrices");
}

namespace {

void check_same_dtype(const Tensor& a, const Tensor& b, const char* fn, const char* na, const char* nb) {
  EMBER_CHECK(a.dtype() == b.dtype(), Runtime, fn, ": Expected ", na, " and ", nb,
              " to have the same dtype, but found ", na, " of type ", dtype_name(a.dtype()), " and ", nb, " of type ",
              dtype_name(b.dtype()), " instead.");
}

// The product of chain[i..j] in the order `split` found (split[i][j]: the last left factor).
Tensor chain_product(const std::vector<Tensor>& chain, const std::vector<std::vector<size_t>>& split, size_t i,
                     size_t j) {
  if (i == j) return chain[i];
  const size_t k = split[i][j];
  return mm(chain_product(chain, split, i, k), chain_product(chain, split, k + 1, j));
}

// The classic matrix-chain order: split[i][j] minimising the multiply-adds of chain[i..j].
std::vector<std::vector<size_t>> chain_order(const std::vector<int64_t>& p) {
  const size_t n = p.size() - 1;
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0.0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t len = 1; len < n; len++) {
    for (size_t i = 0; i + len < n; i++) {
      const size_t j = i + len;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (size_t k = i; k < j; k++) {
        const double c = cost[i][k] + cost[k + 1][j] + double(p[i]) * double(p[k + 1]) * double(p[j + 1]);
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = k;
        }
      }
    }
  }
  return split;
}

}  // namespace

}  // namespace ember::ad

namespace ember::ops {

Tensor linalg_cross(const Tensor& input, const Tensor& other, int64_t dim) {
  ad::check_same_dtype(input, other, "linalg.cross", "input", "other");
  EMBER_CHECK(input.dim() == other.dim(), Runtime, "linalg.cross: inputs must have the same number of dimensions.");
  const int64_t d = wrap_dim(dim, input.dim());
  EMBER_CHECK(input.sizes()[d] == 3 && other.sizes()[d] == 3, Runtime, "linalg.cross: inputs dimension ", dim,
              " must have length 3. Got ", input.sizes()[d], " and ", other.sizes()[d]);
  auto a = [&](int64_t i) { return ad::select(input, d, i); };
  auto b = [&](int64_t i) { return ad::select(other, d, i); };
  using ad::operator*;
  using ad::operator-;
  return ad::stack({a(1) * b(2) - a(2) * b(1), a(2) * b(0) - a(0) * b(2), a(0) * b(1) - a(1) * b(0)}, d);
}

Tensor linalg_vecdot(const Tensor& x, const Tensor& y, int64_t dim) {
  ad::check_same_dtype(x, y, "linalg.vecdot", "x", "y");
  ad::check_float_or_complex(x, "linalg.vecdot");
  return ad::sum(ad::mul(ad::cj(x), y), DimVec{dim}, false, ScalarType::Undefined);
}

Tensor linalg_diagonal(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  return ad::diagonal(A, offset, dim1, dim2);
}

// Columns x^0, x^1, ..., x^(N-1): a column of ones beside the running products of x (cumprod keeps
// the gradient finite at x = 0, where pow's would not be). Integer x is promoted to int64 first, as
// in torch, so small integer types do not wrap around.
Tensor linalg_vander(const Tensor& input, std::optional<int64_t> N) {
  EMBER_CHECK(input.dim() >= 1, Runtime, "linalg.vander: x must have at least one dimension.");
  EMBER_CHECK(input.dtype() != ScalarType::Bool, Runtime,
              "linalg.vander supports floating point, complex, and "
              "integer tensors, but got Bool");
  const int64_t n = N.value_or(input.size(-1));
  EMBER_CHECK(n > 1, Runtime, "linalg.vander: N must be greater than 1, got ", n);
  const bool widen = !is_floating(input.dtype()) && !is_complex(input.dtype()) && input.dtype() != ScalarType::Int64;
  const Tensor x = widen ? ad::_to_copy(input, ScalarType::Int64, std::nullopt) : input;
  DimVec shape = x.sizes();
  shape.push_back(n - 1);
  Tensor powers = ad::cumprod(ad::expand(ad::unsqueeze(x, -1), shape), -1, x.dtype());
  shape.back() = 1;
  return ad::cat({ad::ones(shape, x.dtype(), x.device(), false), powers}, -1);
}

Tensor linalg_multi_dot(const std::vector<Tensor>& tensors) {
  const size_t n = tensors.size();
  EMBER_CHECK(n >= 2, Runtime, "multi_dot(): expected at least 2 tensors but got ", n);
  for (size_t i = 0; i < n; i++) {
    const Tensor& t = tensors[i];
    const bool end = i == 0 || i == n - 1;
    const std::string which = i == 0       ? "the first tensor must be 1D or 2D"
                              : i == n - 1 ? "the last tensor must be 1D or 2D"
                                           : "tensor " + std::to_string(i) + " must be 2D";
    EMBER_CHECK(t.dim() == 2 || (end && t.dim() == 1), Runtime, "multi_dot(): ", which, " but got ", t.dim(), "D");
    EMBER_CHECK(t.dtype() == tensors[0].dtype(), Runtime,
                "multi_dot(): all tensors must have be the same dtype but "
                "tensor 0 is ",
                dtype_name(tensors[0].dtype()), " and tensor ", i, " is ", dtype_name(t.dtype()));
  }
  std::vector<Tensor> chain(tensors);
  const bool row = chain[0].dim() == 1, col = chain[n - 1].dim() == 1;
  if (row) chain[0] = ad::unsqueeze(chain[0], 0);
  if (col) chain[n - 1] = ad::unsqueeze(chain[n - 1], -1);
  std::vector<int64_t> p{chain[0].sizes()[0]};
  for (size_t i = 0; i < n; i++) {
    EMBER_CHECK(chain[i].sizes()[0] == p.back(), Runtime, "multi_dot(): tensors ", i - 1, " and ", i, " with shapes ",
                tensors[i - 1].sizes(), " and ", tensors[i].sizes(), " cannot be multiplied");
    p.push_back(chain[i].sizes()[1]);
  }
  Tensor r = ad::chain_product(chain, ad::chain_order(p), 0, n - 1);
  if (row && col) return ad::reshape(r, DimVec{});
  if (row) return ad::squeeze(r, DimVec{0});
  return col ? ad::squeeze(r, DimVec{-1}) : r;
}

// A^n by repeated squaring; n = 0 gives the identity (through copy_, so A still gets a gradient: 0).
// Integer A works for n >= 0; n < 0 needs the inverse, so a floating point or complex A.
Tensor linalg_matrix_power(const Tensor& A, int64_t n) {
  ad::check_square(A, "linalg.matrix_power");
  if (n == 0) {
    Tensor r = ad::clone(A);
    const int64_t k = A.size(-1);
    return ad::copy_(r, ad::eye(k, k, A.dtype(), A.device(), false), false);
  }
  Tensor z = n < 0 ? ad::inverse(A, "linalg.matrix_power") : A;
  uint64_t m = n < 0 ? uint64_t(-(n + 1)) + 1 : uint64_t(n);
  Tensor r;
  while (true) {
    if (m & 1) r = r.defined() ? ad::matmul(r, z) : z;
    m >>= 1;
    if (!m) break;
    z = ad::matmul(z, z);
  }
  return r.is_same(A) ? ad::clone(A) : r;
}

}  // namespace ember::ops
