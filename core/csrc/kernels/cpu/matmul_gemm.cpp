// gemm_batched: batched matrix products on tensors of any strides. float/double/complex call
// OpenBLAS's gemm with strides and transposes taken from the layout (a copy only when a matrix
// has no unit stride); bfloat16 uses AVX512_BF16 where the CPU has it (matmul_bf16.cpp), else it
// and float16 go through float32; integers use matmul_int.cpp.
#include <algorithm>

#include "device/parallel.h"
#include "generated/ops/mul.h"
#include "iter/copy.h"
#include "kernels/blas.h"
#include "kernels/cpu/matmul_bf16.h"
#include "kernels/matmul.h"

namespace ember {

namespace detail {

BatchWalk::BatchWalk(const Tensor& t0, const Tensor& t1, const Tensor& t2, int64_t tail) {
  const int64_t nb = t0.dim() - tail;
  for (int64_t d = 0; d < nb; d++) {
    sizes.push_back(t0.sizes()[d]);
    s0.push_back(t0.strides()[d]);
    s1.push_back(t1.strides()[d]);
    s2.push_back(t2.strides()[d]);
    count *= t0.sizes()[d];
  }
}

void BatchWalk::offsets(int64_t i, int64_t& o0, int64_t& o1, int64_t& o2) const {
  o0 = o1 = o2 = 0;
  for (int64_t d = sizes.size() - 1; d >= 0; d--) {
    const int64_t idx = i % sizes[d];
    i /= sizes[d];
    o0 += idx * s0[d];
    o1 += idx * s1[d];
    o2 += idx * s2[d];
  }
}

void scale_out(const Tensor& out, const Scalar& beta) {
  if (out.numel() == 0) return;
  if (!beta.to_bool())
    fill_(out, Scalar(int64_t(0)));
  else
    copy_(out, ops::mul(out, scalar_tensor(beta, out.dtype())));
}

}  // namespace detail

namespace {

using blas::Op;

// How an r x c matrix with strides (s0, s1) reads as a BLAS operand without a copy, if it does:
// row-major (Op::N) or the transpose of a row-major c x r matrix (Op::T), with its leading dim.
bool blas_layout(int64_t r, int64_t c, int64_t s0, int64_t s1, Op& op, int64_t& ld) {
  if ((c == 1 || s1 == 1) && (r == 1 || s0 >= std::max<int64_t>(c, 1))) {
    op = Op::N;
    ld = r == 1 ? std::max<int64_t>(c, 1) : s0;
  } else if ((r == 1 || s0 == 1) && (c == 1 || s1 >= std::max<int64_t>(r, 1))) {
    op = Op::T;
    ld = c == 1 ? std::max<int64_t>(r, 1) : s1;
  } else {
    return false;
  }
  return blas::fits_blas(ld);
}

Op flip(Op op) { return op == Op::N ? Op::T : Op::N; }

bool matrix_layout(const Tensor& t, Op& op, int64_t& ld) {
  const int64_t nd = t.dim();
  return blas_layout(t.sizes()[nd - 2], t.sizes()[nd - 1], t.strides()[nd - 2], t.strides()[nd - 1], op, ld);
}

template <class T>
void gemm_blas(const Tensor& out, const Tensor& a_in, const Tensor& b_in, const Scalar& beta_s, const Scalar& alpha_s) {
  const int64_t nd = out.dim();
  const int64_t m = out.sizes()[nd - 2], n = out.sizes()[nd - 1], k = a_in.sizes()[nd - 1];
  EMBER_CHECK(blas::fits_blas(m) && blas::fits_blas(n) && blas::fits_blas(k), Runtime, "matrix product of (", m, "x", k,
              ") and (", k, "x", n,
              ") matrices: a dimension exceeds the 32-bit "
              "limit of the OpenBLAS build ember uses");
  Op opa, opb, opc;
  int64_t lda, ldb, ldc;
  Tensor a = a_in, b = b_in, c = out;
  if (!matrix_layout(a, opa, lda)) {
    a = contiguous_copy(a);
    matrix_layout(a, opa, lda);
  }
  if (!matrix_layout(b, opb, ldb)) {
    b = contiguous_copy(b);
    matrix_layout(b, opb, ldb);
  }
  const T beta = beta_s.to<T>(), alpha = alpha_s.to<T>();
  const bool beta_zero = beta == T(0);
  if (!matrix_layout(c, opc, ldc)) {
    c = empty(out.sizes(), out.dtype());
    if (!beta_zero) copy_(c, out);
    matrix_layout(c, opc, ldc);
  }
  const detail::BatchWalk walk(c, a, b, 2);
  const T* pa = a.data_as<T>();
  const T* pb = b.data_as<T>();
  T* pc = c.data_as<T>();
  auto one = [&](int64_t i) {
    int64_t oc, oa, ob;
    walk.offsets(i, oc, oa, ob);
    if (m == 1) {  // one row (a batch-1 linear layer): gemv, which reads B in place where gemm packs it each call
      T* y = pc + oc;
      const int64_t incy = opc == Op::N ? 1 : ldc, incx = opa == Op::N ? 1 : lda;
      if (beta_zero)  // gemv scales y by beta: 0 * NaN in fresh memory would stay NaN
        for (int64_t j = 0; j < n; j++) y[j * incy] = T(0);
      if (opb == Op::N)
        blas::gemv<T>(Op::T, k, n, alpha, pb + ob, ldb, pa + oa, incx, beta, y, incy);
      else
        blas::gemv<T>(Op::N, n, k, alpha, pb + ob, ldb, pa + oa, incx, beta, y, incy);
      return;
    }
    if (opc == Op::N)
      blas::gemm<T>(opa, opb, m, n, k, alpha, pa + oa, lda, pb + ob, ldb, beta, pc + oc, ldc);
    else
      blas::gemm<T>(flip(opb), flip(opa), n, m, k, alpha, pb + ob, ldb, pa + oa, lda, beta, pc + oc, ldc);
  };
  // blas::gemm splits one product from 64^3 multiply-adds up across the threads; smaller ones run in
  // parallel per batch.
  const int64_t work = m * n * k, big = 64 * 64 * 64;
  if (walk.count > 1 && work < big) {
    parallel_for(walk.count, std::max<int64_t>(1, big / std::max<int64_t>(work, 1)), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; i++) one(i);
    });
  } else {
    for (int64_t i = 0; i < walk.count; i++) one(i);
  }
  if (!c.is_same(out)) copy_(out, c);
}

// float16/bfloat16: the product in float32 (as PyTorch's CPU kernels accumulate), rounded once.
void gemm_reduced(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  if (out.dtype() == ScalarType::BFloat16 && detail::gemm_bf16_batched(out, a, b, beta, alpha)) return;
  Tensor a32 = to_dtype(a, ScalarType::Float32), b32 = to_dtype(b, ScalarType::Float32);
  Tensor c32 = empty(out.sizes(), ScalarType::Float32);
  if (beta.to_bool()) copy_(c32, out);
  gemm_blas<float>(c32, a32, b32, beta, alpha);
  copy_(out, c32);
}

}  // namespace

void gemm_batched(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  const int64_t nd = out.dim();
  if (out.is_meta() || out.numel() == 0) return;
  if (a.sizes()[nd - 1] == 0) return detail::scale_out(out, beta);
  switch (out.dtype()) {
    case ScalarType::Float32:
      return gemm_blas<float>(out, a, b, beta, alpha);
    case ScalarType::Float64:
      return gemm_blas<double>(out, a, b, beta, alpha);
    case ScalarType::Complex64:
      return gemm_blas<complex64>(out, a, b, beta, alpha);
    case ScalarType::Complex128:
      return gemm_blas<complex128>(out, a, b, beta, alpha);
    case ScalarType::Float16:
    case ScalarType::BFloat16:
      return gemm_reduced(out, a, b, beta, alpha);
    default:
      return detail::gemm_int(out, a, b, beta, alpha);
  }
}

}  // namespace ember
