// The checks, Fortran-order copies and info-code errors of kernels/cpu/linalg_common.h.
#include "kernels/cpu/linalg_common.h"

#include <cmath>

#include "iter/copy.h"
#include "iter/tensor_iter.h"
#include "kernels/matmul.h"

namespace ember::linalg {

void check_floating(const Tensor& t, const char* op, const char* name) {
  const ScalarType d = t.dtype();
  EMBER_CHECK(
      d == ScalarType::Float32 || d == ScalarType::Float64 || d == ScalarType::Complex64 || d == ScalarType::Complex128,
      Runtime, op, ": Expected a floating point or complex tensor as input. Got ", scalar_type_name(d), " (", name,
      " must be float32, float64, complex64 or complex128)");
}

void check_matrix(const Tensor& t, const char* op, bool square, const char* name) {
  EMBER_CHECK(t.dim() >= 2, Runtime, op, ": The input tensor ", name, " must have at least 2 dimensions.");
  if (square)
    EMBER_CHECK(t.size(-1) == t.size(-2), Runtime, op, ": ", name, " must be batches of square matrices, but they are ",
                t.size(-2), " by ", t.size(-1), " matrices");
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* op, const char* na, const char* nb) {
  EMBER_CHECK(a.dtype() == b.dtype(), Runtime, op, ": Expected ", na, " and ", nb,
              " to have the same dtype, but found ", na, " of type ", scalar_type_name(a.dtype()), " and ", nb,
              " of type ", scalar_type_name(b.dtype()), " instead.");
  EMBER_CHECK(a.device() == b.device(), Runtime, op, ": Expected ", na, " and ", nb,
              " to be on the same device, but found ", a.device().str(), " and ", b.device().str());
}

int lapack_int(int64_t n, const char* op) {
  EMBER_CHECK(n >= 0 && n <= 2147483647, Runtime, op, ": a matrix dimension of ", n,
              " does not fit LAPACK's 32-bit integers");
  return int(n);
}

bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  for (int64_t i = 0; i < B.dim(); i++)
    if (B.sizes()[i] != A.sizes()[i]) return false;
  return true;
}

DimVec batch_of(const DimVec& sizes, int64_t drop) {
  DimVec b;
  for (int64_t i = 0; i + drop < int64_t(sizes.size()); i++) b.push_back(sizes[i]);
  return b;
}

DimVec with_tail(const DimVec& batch, std::initializer_list<int64_t> tail) {
  DimVec r = batch;
  for (int64_t t : tail) r.push_back(t);
  return r;
}

int64_t numel_of(const DimVec& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

DimVec broadcast_batch(const DimVec& a, const DimVec& b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  DimVec r(n);
  for (size_t i = 0; i < n; i++) {
    const int64_t x = i + a.size() >= n ? a[i + a.size() - n] : 1;
    const int64_t y = i + b.size() >= n ? b[i + b.size() - n] : 1;
    EMBER_CHECK(x == y || x == 1 || y == 1, Runtime, op, ": the batch dimensions of the inputs do not broadcast: ", a,
                " and ", b);
    r[i] = x == 1 ? y : x;
  }
  return r;
}

DimVec fortran_strides(const DimVec& sizes) {
  const int64_t nd = sizes.size();
  DimVec st(nd);
  if (nd < 2) {
    int64_t s = 1;
    for (int64_t i = nd - 1; i >= 0; i--) {
      st[i] = s;
      s *= std::max<int64_t>(sizes[i], 1);
    }
    return st;
  }
  const int64_t m = sizes[nd - 2], n = sizes[nd - 1];
  st[nd - 2] = 1;
  st[nd - 1] = std::max<int64_t>(m, 1);
  int64_t s = std::max<int64_t>(m, 1) * std::max<int64_t>(n, 1);
  for (int64_t i = nd - 3; i >= 0; i--) {
    st[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return st;
}

Tensor fortran_empty(const DimVec& sizes, ScalarType dtype, Device device) {
  return empty_strided(sizes, fortran_strides(sizes), dtype, device);
}

Tensor fortran_copy(const Tensor& t, const DimVec& sizes) {
  Tensor r = fortran_empty(sizes, t.dtype(), t.device());
  if (!t.is_meta() && r.numel() > 0) copy_(r, t);
  return r;
}

Tensor dense_copy(const Tensor& t, const DimVec& sizes) {
  Tensor r = empty(sizes, t.dtype(), t.device());
  if (!t.is_meta() && r.numel() > 0) copy_(r, t);
  return r;
}

ScalarType real_dtype(ScalarType t) {
  if (t == ScalarType::Complex64) return ScalarType::Float32;
  if (t == ScalarType::Complex128) return ScalarType::Float64;
  return t;
}

Tensor info_zeros(const DimVec& batch, Device device) {
  Tensor info = empty(batch, ScalarType::Int32, device);
  if (!info.is_meta()) {
    int32_t* p = info.data_as<int32_t>();
    for (int64_t i = 0; i < info.numel(); i++) p[i] = 0;
  }
  return info;
}

void raise_for_info(const Tensor& info, const char* op, const std::function<std::string(int)>& what) {
  if (info.is_meta()) return;
  const int32_t* p = info.data_as<int32_t>();
  for (int64_t i = 0; i < info.numel(); i++) {
    if (p[i] == 0) continue;
    if (info.dim() == 0) throw LinAlgError(str_cat(op, ": ", what(p[i])));
    throw LinAlgError(str_cat(op, ": (Batch element ", i, "): ", what(p[i])));
  }
}

void check_finite(const Tensor& a, const char* op) {
  if (a.is_meta() || a.numel() == 0) return;
  const int64_t per = a.size(-1) * a.size(-2), count = a.numel() / per;
  visit_lapack(a.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* p = a.data_as<T>();
    for (int64_t b = 0; b < count; b++)
      for (int64_t i = 0; i < per; i++) {
        const T v = p[b * per + i];
        if (std::isfinite(std::real(v)) && std::isfinite(std::imag(v))) continue;
        const std::string what =
            "The algorithm failed to converge because the input matrix contained non-finite values.";
        if (a.dim() == 2) throw LinAlgError(str_cat(op, ": ", what));
        throw LinAlgError(str_cat(op, ": (Batch element ", b, "): ", what));
      }
  });
}

std::string singular_message(int code) {
  return str_cat("The diagonal element ", code,
                 " is zero, the inversion could not be completed because the input matrix is singular.");
}

std::string not_pd_message(int code) {
  return str_cat(
      "The factorization could not be completed because the input is not positive-definite (the leading "
      "minor of order ",
      code, " is not positive-definite).");
}

std::string no_convergence_message(int code, const char* what) {
  if (code < 0) return "The algorithm failed to converge because the input matrix contained non-finite values.";
  return str_cat(
      "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
      "repeated ",
      what, " (error code: ", code, ").");
}

}  // namespace ember::linalg
