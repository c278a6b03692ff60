// gemv_into and dot_into: matrix-vector and vector-vector products on tensors of any strides.
// float/double/complex call OpenBLAS's gemv and dot; float16/bfloat16 go through float32;
// integers use matmul_int.cpp.
#include <algorithm>

#include "iter/copy.h"
#include "kernels/blas.h"
#include "kernels/matmul.h"

namespace ember {

namespace {

using blas::Op;

// A 1-D operand as BLAS takes it: a positive increment (a copy for stride 0 or negative strides).
Tensor vec_operand(const Tensor& v) {
  if (v.sizes()[0] <= 1 || (v.strides()[0] > 0 && blas::fits_blas(v.strides()[0]))) return v;
  return contiguous_copy(v);
}

int64_t inc(const Tensor& v) { return v.sizes()[0] <= 1 ? 1 : v.strides()[0]; }

template <class T>
void gemv_blas(const Tensor& y, const Tensor& a_in, const Tensor& x_in, const Scalar& beta_s, const Scalar& alpha_s) {
  const int64_t m = a_in.sizes()[0], k = a_in.sizes()[1];
  EMBER_CHECK(blas::fits_blas(m) && blas::fits_blas(k), Runtime, "matrix-vector product of a (", m, "x", k,
              ") matrix: a dimension exceeds the 32-bit limit of the OpenBLAS build ember uses");
  Tensor a = a_in;
  const int64_t s0 = a.strides()[0], s1 = a.strides()[1];
  Op op;
  int64_t ld;
  if ((k == 1 || s1 == 1) && (m == 1 || s0 >= std::max<int64_t>(k, 1)) && blas::fits_blas(s0)) {
    op = Op::N;
    ld = m == 1 ? std::max<int64_t>(k, 1) : s0;
  } else if ((m == 1 || s0 == 1) && (k == 1 || s1 >= std::max<int64_t>(m, 1)) && blas::fits_blas(s1)) {
    op = Op::T;
    ld = k == 1 ? std::max<int64_t>(m, 1) : s1;
  } else {
    a = contiguous_copy(a);
    op = Op::N;
    ld = std::max<int64_t>(k, 1);
  }
  Tensor x = vec_operand(x_in);
  Tensor yy = vec_operand(y);
  const T beta = beta_s.to<T>(), alpha = alpha_s.to<T>();
  if (!yy.is_same(y) && beta != T(0)) copy_(yy, y);
  // beta == 0 must ignore y's old contents: zero them first rather than trusting 0 * NaN.
  if (beta == T(0)) fill_(yy, Scalar(int64_t(0)));
  // A^T stored row-major (k x m) is what Op::T describes: y = (A^T)^T x.
  if (op == Op::N)
    blas::gemv<T>(Op::N, m, k, alpha, a.data_as<T>(), ld, x.data_as<T>(), inc(x), beta, yy.data_as<T>(), inc(yy));
  else
    blas::gemv<T>(Op::T, k, m, alpha, a.data_as<T>(), ld, x.data_as<T>(), inc(x), beta, yy.data_as<T>(), inc(yy));
  if (!yy.is_same(y)) copy_(y, yy);
}

template <class T>
void dot_blas(const Tensor& out, const Tensor& x_in, const Tensor& y_in, bool conj_x) {
  Tensor x = vec_operand(x_in), y = vec_operand(y_in);
  *out.data_as<T>() = blas::dot<T>(x.sizes()[0], x.data_as<T>(), inc(x), y.data_as<T>(), inc(y), conj_x);
}

}  // namespace

void gemv_into(const Tensor& y, const Tensor& a, const Tensor& x, const Scalar& beta, const Scalar& alpha) {
  if (y.is_meta() || y.numel() == 0) return;
  if (a.sizes()[1] == 0) return detail::scale_out(y, beta);
  switch (y.dtype()) {
    case ScalarType::Float32:
      return gemv_blas<float>(y, a, x, beta, alpha);
    case ScalarType::Float64:
      return gemv_blas<double>(y, a, x, beta, alpha);
    case ScalarType::Complex64:
      return gemv_blas<complex64>(y, a, x, beta, alpha);
    case ScalarType::Complex128:
      return gemv_blas<complex128>(y, a, x, beta, alpha);
    case ScalarType::Float16:
    case ScalarType::BFloat16: {
      Tensor y32 = empty(y.sizes(), ScalarType::Float32);
      if (beta.to_bool()) copy_(y32, y);
      gemv_blas<float>(y32, to_dtype(a, ScalarType::Float32), to_dtype(x, ScalarType::Float32), beta, alpha);
      return copy_(y, y32);
    }
    default:
      return detail::gemv_int(y, a, x, beta, alpha);
  }
}

void dot_into(const Tensor& out, const Tensor& x, const Tensor& y, bool conj_x) {
  if (out.is_meta()) return;
  switch (x.dtype()) {
    case ScalarType::Float32:
      return dot_blas<float>(out, x, y, conj_x);
    case ScalarType::Float64:
      return dot_blas<double>(out, x, y, conj_x);
    case ScalarType::Complex64:
      return dot_blas<complex64>(out, x, y, conj_x);
    case ScalarType::Complex128:
      return dot_blas<complex128>(out, x, y, conj_x);
    case ScalarType::Float16:
    case ScalarType::BFloat16: {
      Tensor r = empty({}, ScalarType::Float32);
      dot_blas<float>(r, to_dtype(x, ScalarType::Float32), to_dtype(y, ScalarType::Float32), conj_x);
      return copy_(out, r);
    }
    default:
      return detail::dot_int(out, x, y);
  }
}

}  // namespace ember
