// Integer matrix products (our own loops; BLAS has none): gemm, gemv and dot for uint8..int64.
// Arithmetic is modulo 2^64 in uint64 and truncated to the dtype, so overflow wraps as in NumPy
// and PyTorch instead of being undefined. Rows of the output are spread over the threads.
#include <algorithm>
#include <vector>

#include "device/parallel.h"
#include "iter/copy.h"
#include "kernels/matmul.h"

namespace ember::detail {

namespace {

using U = uint64_t;

template <class T>
U wide(T v) {
  return U(int64_t(v));
}

template <class T>
void gemm_t(const Tensor& out, const Tensor& a, const Tensor& b_in, U beta, U alpha) {
  const int64_t nd = out.dim();
  const int64_t m = out.sizes()[nd - 2], n = out.sizes()[nd - 1], k = a.sizes()[nd - 1];
  // Rows of b with unit stride keep the inner loop contiguous.
  const Tensor b = (n <= 1 || b_in.strides()[nd - 1] == 1) ? b_in : contiguous_copy(b_in);
  const BatchWalk walk(out, a, b, 2);
  const int64_t oa0 = a.strides()[nd - 2], oa1 = a.strides()[nd - 1];
  const int64_t ob0 = b.strides()[nd - 2], ob1 = b.strides()[nd - 1];
  const int64_t oc0 = out.strides()[nd - 2], oc1 = out.strides()[nd - 1];
  const T* pa = a.data_as<T>();
  const T* pb = b.data_as<T>();
  T* pc = out.data_as<T>();
  const int64_t rows = walk.count * m;
  parallel_for(rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(n * k, 1)), [&](int64_t lo, int64_t hi) {
    std::vector<U> acc(n);
    for (int64_t r = lo; r < hi; r++) {
      const int64_t i = r % m;
      int64_t oc, oa, ob;
      walk.offsets(r / m, oc, oa, ob);
      std::fill(acc.begin(), acc.end(), U(0));
      const T* arow = pa + oa + i * oa0;
      for (int64_t kk = 0; kk < k; kk++) {
        const U av = wide(arow[kk * oa1]);
        if (av == 0) continue;
        const T* brow = pb + ob + kk * ob0;
        if (ob1 == 1) {
          for (int64_t j = 0; j < n; j++) acc[j] += av * wide(brow[j]);
        } else {
          for (int64_t j = 0; j < n; j++) acc[j] += av * wide(brow[j * ob1]);
        }
      }
      T* crow = pc + oc + i * oc0;
      for (int64_t j = 0; j < n; j++) {
        const U prev = beta ? beta * wide(crow[j * oc1]) : U(0);
        crow[j * oc1] = T(prev + alpha * acc[j]);
      }
    }
  });
}

template <class T>
void gemv_t(const Tensor& y, const Tensor& a, const Tensor& x, U beta, U alpha) {
  const int64_t m = a.sizes()[0], k = a.sizes()[1];
  const int64_t sa0 = a.strides()[0], sa1 = a.strides()[1], sx = x.strides()[0], sy = y.strides()[0];
  const T* pa = a.data_as<T>();
  const T* px = x.data_as<T>();
  T* py = y.data_as<T>();
  parallel_for(m, std::max<int64_t>(1, 65536 / std::max<int64_t>(k, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) {
      U acc = 0;
      for (int64_t kk = 0; kk < k; kk++) acc += wide(pa[i * sa0 + kk * sa1]) * wide(px[kk * sx]);
      const U prev = beta ? beta * wide(py[i * sy]) : U(0);
      py[i * sy] = T(prev + alpha * acc);
    }
  });
}

template <class T>
void dot_t(const Tensor& out, const Tensor& x, const Tensor& y) {
  const int64_t n = x.sizes()[0], sx = x.strides()[0], sy = y.strides()[0];
  const T* px = x.data_as<T>();
  const T* py = y.data_as<T>();
  U acc = 0;  // integer sums are exact (mod 2^64) in any order: one pass, no threads needed
  for (int64_t i = 0; i < n; i++) acc += wide(px[i * sx]) * wide(py[i * sy]);
  *out.data_as<T>() = T(acc);
}

template <class F>
void visit_int(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case ScalarType::UInt8:
      return f(uint8_t{});
    case ScalarType::Int8:
      return f(int8_t{});
    case ScalarType::Int16:
      return f(int16_t{});
    case ScalarType::Int32:
      return f(int32_t{});
    case ScalarType::Int64:
      return f(int64_t{});
    default:
      EMBER_FAIL(Runtime, "\"", op, "\" not implemented for '", scalar_type_name(t), "'");
  }
}

}  // namespace

void gemm_int(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  visit_int(out.dtype(), "addmm_impl_cpu_",
            [&](auto z) { gemm_t<decltype(z)>(out, a, b, U(beta.to_int()), U(alpha.to_int())); });
}

void gemv_int(const Tensor& y, const Tensor& a, const Tensor& x, const Scalar& beta, const Scalar& alpha) {
  visit_int(y.dtype(), "addmv_impl_cpu",
            [&](auto z) { gemv_t<decltype(z)>(y, a, x, U(beta.to_int()), U(alpha.to_int())); });
}

void dot_int(const Tensor& out, const Tensor& x, const Tensor& y) {
  visit_int(x.dtype(), "dot", [&](auto z) { dot_t<decltype(z)>(out, x, y); });
}

}  // namespace ember::detail
