// The recurrent layers' arithmetic: the gate activations over rows (float32 through vec::Exp8 on
// AVX2) and the layer's matrix products (float32 on the unpacked AVX-512/AVX2 register kernels).
#include <algorithm>
#include <cmath>

#include "device/cpu_features.h"
#include "device/parallel.h"
#include "generated/ops/t.h"
#include "iter/copy.h"
#include "kernels/blas.h"
#include "kernels/cpu/rnn_layer.h"
#include "kernels/cpu/sgemm_unpacked.h"
#include "kernels/simd/exp_avx2.h"
#include "tensor/factory.h"

namespace ember::rnn {

namespace {

// Past this depth a panel of B (k x 32) no longer stays in L2: OpenBLAS's packing pays off again.
constexpr int64_t kUnpackedMaxK = 4096;

// The register kernel over column panels split across ember's threads (a piece is at least ~1M
// multiply-adds, so one step's product of a small batch stays on one thread).
void unpacked(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
              int64_t ldc, bool accumulate) {
  constexpr int64_t kPanel = 32;
  const bool wide = cpu_has_avx512();
  const int64_t panels = (n + kPanel - 1) / kPanel;
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 20) / std::max<int64_t>(1, m * k * kPanel));
  parallel_for(panels, grain, [&](int64_t p0, int64_t p1) {
    const int64_t j0 = p0 * kPanel, cols = std::min(n, p1 * kPanel) - j0;
    if (wide)
      sgemm_unpacked::product512(m, cols, k, a, lda, b + j0, ldb, c + j0, ldc, accumulate);
    else
      sgemm_unpacked::product(m, cols, k, a, lda, b + j0, ldb, c + j0, ldc, accumulate);
  });
}

}  // namespace

void product(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
             int64_t ldc, bool accumulate) {
  if (m == 0 || n == 0) return;
  if (cpu_has_avx2() && k <= kUnpackedMaxK) return unpacked(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  blas::gemm<float>(blas::Op::N, blas::Op::N, m, n, k, 1.f, a, lda, b, ldb, accumulate ? 1.f : 0.f, c, ldc);
}

void product(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b, int64_t ldb, double* c,
             int64_t ldc, bool accumulate) {
  if (m == 0 || n == 0) return;
  blas::gemm<double>(blas::Op::N, blas::Op::N, m, n, k, 1.0, a, lda, b, ldb, accumulate ? 1.0 : 0.0, c, ldc);
}

void product_at(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c, Tensor* a_t) {
  if (m == 0 || n == 0) return;
  if (cpu_has_avx512() && k > 0 && k <= kUnpackedMaxK) {  // a^T laid out row-major once, then the register kernel
    Tensor local;
    Tensor& at = a_t ? *a_t : local;
    if (!at.defined()) {
      at = empty({m, k}, ScalarType::Float32);
      sgemm_unpacked::transpose(k, m, a, m, at.data_as<float>(), k);
    }
    return unpacked(m, n, k, at.data_as<float>(), k, b, n, c, n, false);
  }
  blas::gemm<float>(blas::Op::T, blas::Op::N, m, n, k, 1.f, a, m, b, n, 0.f, c, n);
}

void product_at(int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c, Tensor*) {
  if (m == 0 || n == 0) return;
  blas::gemm<double>(blas::Op::T, blas::Op::N, m, n, k, 1.0, a, m, b, n, 0.0, c, n);
}

Tensor transposed(const Tensor& w) {
  if (w.dtype() != ScalarType::Float32 || !cpu_has_avx2()) return contiguous(ops::t(w));
  const Tensor src = contiguous(w);
  const int64_t r = w.sizes()[0], c = w.sizes()[1];
  Tensor out = empty({c, r}, ScalarType::Float32, w.device());
  sgemm_unpacked::transpose(r, c, src.data_as<float>(), c, out.data_as<float>(), r);
  return out;
}

namespace {

EMBER_AVX2 void sigmoid_avx2(float* x, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = vec::Exp8::apply(_mm256_sub_ps(_mm256_setzero_ps(), _mm256_loadu_ps(x + i)));
    _mm256_storeu_ps(x + i, _mm256_div_ps(one, _mm256_add_ps(one, e)));
  }
  for (; i < n; i++) x[i] = 1.f / (1.f + std::exp(-x[i]));
}

// tanh x = sign(x) (1 - e) / (1 + e) with e = exp(-2|x|) in (0, 1]: nothing overflows.
EMBER_AVX2 void tanh_avx2(float* x, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.f), sign = _mm256_set1_ps(-0.f), m2 = _mm256_set1_ps(-2.f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 e = vec::Exp8::apply(_mm256_mul_ps(m2, _mm256_andnot_ps(sign, v)));
    const __m256 r = _mm256_div_ps(_mm256_sub_ps(one, e), _mm256_add_ps(one, e));
    _mm256_storeu_ps(x + i, _mm256_or_ps(r, _mm256_and_ps(sign, v)));
  }
  for (; i < n; i++) x[i] = std::tanh(x[i]);
}

}  // namespace

void sigmoid_(float* x, int64_t n) {
  if (cpu_has_avx2()) return sigmoid_avx2(x, n);
  for (int64_t i = 0; i < n; i++) x[i] = 1.f / (1.f + std::exp(-x[i]));
}

void sigmoid_(double* x, int64_t n) {
  for (int64_t i = 0; i < n; i++) x[i] = 1.0 / (1.0 + std::exp(-x[i]));
}

void tanh_(float* x, int64_t n) {
  if (cpu_has_avx2()) return tanh_avx2(x, n);
  for (int64_t i = 0; i < n; i++) x[i] = std::tanh(x[i]);
}

void tanh_(double* x, int64_t n) {
  for (int64_t i = 0; i < n; i++) x[i] = std::tanh(x[i]);
}

}  // namespace ember::rnn
