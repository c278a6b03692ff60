// Composite linalg norms (core/ops/linalg_composite.yaml): vector_norm, matrix_norm and the
// dispatching norm, written with recorded (ad::) ops. Checks and messages follow PyTorch's.
#include <algorithm>
#include <cmath>

#include "autograd/formulas.h"
#include "composite/linalg_composite.h"

namespace ember::ad {

namespace {

bool is_float_or_complex(ScalarType t) { return is_floating(t) || is_complex(t); }

// Whether the dims reduced by `dim` (None or empty: all) hold no element.
bool reduces_nothing(const Tensor& x, const std::optional<DimVec>& dim) {
  if (!dim || dim->empty()) return x.numel() == 0;
  for (int64_t d : *dim)
    if (x.sizes()[wrap_dim(d, x.dim())] == 0) return true;
  return false;
}

std::string ord_str(double ord) {
  if (std::isinf(ord)) return ord > 0 ? "inf" : "-inf";
  std::string s = std::to_string(ord);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// A's dims d0, d1 checked as torch.linalg.matrix_norm does, wrapped.
std::pair<int64_t, int64_t> matrix_dims(const Tensor& A, const DimVec& dim) {
  EMBER_CHECK(A.dim() >= 2, Runtime, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(dim.size() == 2, Runtime, "linalg.matrix_norm: dim must be a 2-tuple. Got ", dim.size(), " dims");
  const int64_t d0 = wrap_dim(dim[0], A.dim()), d1 = wrap_dim(dim[1], A.dim());
  EMBER_CHECK(d0 != d1, Runtime, "linalg.matrix_norm: dims must be different. Got (", dim[0], ", ", dim[1], ")");
  EMBER_CHECK(is_float_or_complex(A.dtype()), Runtime,
              "linalg.matrix_norm: Expected a floating point or complex "
              "tensor as input. Got ",
              dtype_name(A.dtype()));
  return {d0, d1};
}

Tensor cast_to(const Tensor& A, ScalarType dtype, const char* fn) {
  if (dtype == ScalarType::Undefined || dtype == A.dtype()) return A;
  EMBER_CHECK(is_float_or_complex(dtype), Runtime, fn, ": dtype should be floating point or complex, but got ",
              dtype_name(dtype));
  EMBER_CHECK(is_complex(A.dtype()) == is_complex(dtype), Runtime, fn, ": dtype should be ",
              is_complex(A.dtype()) ? "complex" : "real", " for ", is_complex(A.dtype()) ? "complex" : "real",
              " inputs, but got ", dtype_name(dtype));
  return _to_copy(A, dtype, std::nullopt);
}

// Removes the two reduced dims (kept as size 1 so far) unless keepdim.
Tensor drop_dims(const Tensor& r, int64_t d0, int64_t d1, bool keepdim) {
  return keepdim ? r : squeeze(r, DimVec{d0, d1});
}

// The singular values of A over (d0, d1) reduced (kind > 0: max, < 0: min, 0: sum) and put back
// where d0, d1 were when keepdim.
Tensor reduce_singular(const Tensor& A, int64_t d0, int64_t d1, bool keepdim, int kind) {
  Tensor s = singular_values(movedim(A, DimVec{d0, d1}, DimVec{-2, -1}), "linalg.matrix_norm");
  Tensor r = kind > 0   ? amax(s, DimVec{-1}, false)
             : kind < 0 ? amin(s, DimVec{-1}, false)
                        : sum(s, DimVec{-1}, false, ScalarType::Undefined);
  if (!keepdim) return r;
  r = unsqueeze(r, std::min(d0, d1));
  return unsqueeze(r, std::max(d0, d1));
}

}  // namespace

Tensor vector_norm_impl(const Tensor& x, const Scalar& ord, const std::optional<DimVec>& dim, bool keepdim,
                        ScalarType dtype) {
  EMBER_CHECK(is_float_or_complex(x.dtype()), Runtime,
              "linalg.vector_norm: Expected a floating point or complex "
              "tensor as input. Got ",
              dtype_name(x.dtype()));
  EMBER_CHECK(!ord.is_complex(), Runtime, "linalg.vector_norm: ord must be a real number, got a complex one");
  const double p = ord.to_double();
  EMBER_CHECK(!std::isnan(p), Runtime, "linalg.vector_norm: ord must not be NaN");
  EMBER_CHECK(!(p < 0 || std::isinf(p)) || !reduces_nothing(x, dim), Runtime, "linalg.vector_norm cannot compute the ",
              ord_str(p), " norm on an empty tensor because the operation does not have an identity");
  return norm_p(cast_to(x, dtype, "linalg.vector_norm"), Scalar(p), dim, keepdim, ScalarType::Undefined);
}

Tensor matrix_norm_str_impl(const Tensor& A, const std::string& ord, const DimVec& dim, bool keepdim,
                            ScalarType dtype) {
  const auto [d0, d1] = matrix_dims(A, dim);
  EMBER_CHECK(ord == "fro" || ord == "nuc", Runtime, "linalg.matrix_norm: Order ", ord, " not supported.");
  const Tensor x = cast_to(A, dtype, "linalg.matrix_norm");
  if (ord == "fro") return vector_norm_impl(x, Scalar(2.0), DimVec{d0, d1}, keepdim, ScalarType::Undefined);
  return reduce_singular(x, d0, d1, keepdim, 0);
}

Tensor matrix_norm_ord_impl(const Tensor& A, const Scalar& ord, const DimVec& dim, bool keepdim, ScalarType dtype) {
  const auto [d0, d1] = matrix_dims(A, dim);
  const double p = ord.to_double();
  const bool abs_one = std::fabs(p) == 1 || std::isinf(p);
  EMBER_CHECK(!ord.is_complex() && (abs_one || std::fabs(p) == 2), Runtime, "linalg.matrix_norm: Order ", ord_str(p),
              " not supported.");
  // 1: the largest column sum of |A| (sum over rows d0, max over d1); inf: the largest row sum.
  const bool cols = std::fabs(p) == 1;
  const int64_t m = A.sizes()[d0], n = A.sizes()[d1];
  // A min over no element has no value (as in torch): -2 on any empty matrix, -1 / -inf when the
  // dim they minimise over (d1 / d0) is empty. The other orders of an empty matrix are 0.
  const int64_t min_over = !abs_one ? std::min(m, n) : cols ? n : m;
  EMBER_CHECK(p > 0 || min_over > 0, Runtime, "linalg.matrix_norm: the ", ord_str(p), " norm of a ", m, " by ", n,
              " matrix is a minimum over no element (it has no identity)");
  const Tensor x = cast_to(A, dtype, "linalg.matrix_norm");
  if (p > 0 && (m == 0 || n == 0))
    return drop_dims(sum(abs(x), DimVec{d0, d1}, true, ScalarType::Undefined), d0, d1, keepdim);
  if (!abs_one) return reduce_singular(x, d0, d1, keepdim, p > 0 ? 1 : -1);
  Tensor s = sum(abs(x), DimVec{cols ? d0 : d1}, true, ScalarType::Undefined);
  Tensor r = p > 0 ? amax(s, DimVec{cols ? d1 : d0}, true) : amin(s, DimVec{cols ? d1 : d0}, true);
  return drop_dims(r, d0, d1, keepdim);
}

}  // namespace ember::ad

namespace ember::ops {

Tensor linalg_vector_norm(const Tensor& x, const Scalar& ord, const std::optional<DimVec>& dim, bool keepdim,
                          ScalarType dtype) {
  return ad::vector_norm_impl(x, ord, dim, keepdim, dtype);
}

Tensor linalg_matrix_norm(const Tensor& A, const std::string& ord, const DimVec& dim, bool keepdim, ScalarType dtype) {
  return ad::matrix_norm_str_impl(A, ord, dim, keepdim, dtype);
}

Tensor linalg_matrix_norm_ord(const Tensor& A, const Scalar& ord, const DimVec& dim, bool keepdim, ScalarType dtype) {
  return ad::matrix_norm_ord_impl(A, ord, dim, keepdim, dtype);
}

// torch.linalg.norm: with dim, its length picks a vector (1) or matrix (2) norm; without, ord None
// is the 2-norm of the flattened input, and an ord needs a 1-D or 2-D input.
Tensor linalg_norm(const Tensor& A, const std::optional<Scalar>& ord, const std::optional<DimVec>& dim, bool keepdim,
                   ScalarType dtype) {
  if (dim) {
    EMBER_CHECK(dim->size() == 1 || dim->size() == 2, Runtime,
                "linalg.norm: If dim is specified, it must be of "
                "length 1 or 2. Got ",
                dim->size());
    if (dim->size() == 1) return ad::vector_norm_impl(A, ord.value_or(Scalar(2.0)), dim, keepdim, dtype);
    if (!ord) return ad::matrix_norm_str_impl(A, "fro", *dim, keepdim, dtype);
    return ad::matrix_norm_ord_impl(A, *ord, *dim, keepdim, dtype);
  }
  if (!ord) return ad::vector_norm_impl(A, Scalar(2.0), std::nullopt, keepdim, dtype);
  EMBER_CHECK(A.dim() == 1 || A.dim() == 2, Runtime,
              "linalg.norm: If dim is not specified but ord is, the input "
              "must be 1D or 2D. Got ",
              A.dim(), "D.");
  if (A.dim() == 1) return ad::vector_norm_impl(A, *ord, std::nullopt, keepdim, dtype);
  return ad::matrix_norm_ord_impl(A, *ord, DimVec{-2, -1}, keepdim, dtype);
}

Tensor linalg_norm_str(const Tensor& A, const std::string& ord, const std::optional<DimVec>& dim, bool keepdim,
                       ScalarType dtype) {
  if (dim) {
    EMBER_CHECK(dim->size() == 2, Runtime, "linalg.norm: a matrix norm ('", ord, "') needs dim of length 2. Got ",
                dim->size());
    return ad::matrix_norm_str_impl(A, ord, *dim, keepdim, dtype);
  }
  EMBER_CHECK(A.dim() == 2, Runtime,
              "linalg.norm: If dim is not specified but ord is, the input must be 2D for "
              "ord='",
              ord, "'. Got ", A.dim(), "D.");
  return ad::matrix_norm_str_impl(A, ord, DimVec{-2, -1}, keepdim, dtype);
}

}  // namespace ember::ops
