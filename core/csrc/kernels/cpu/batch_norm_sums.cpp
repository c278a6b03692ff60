#include "kernels/cpu/batch_norm_sums.h"

#include <immintrin.h>

namespace ember::bn {

namespace {

#define BN_AVX2 __attribute__((target("avx2,fma")))
#define BN_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

// The 8 floats at p as two vectors of 4 doubles.
BN_INLINE void widen(const float* p, __m256d& lo, __m256d& hi) {
  const __m256 v = _mm256_loadu_ps(p);
  lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
  hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
}

BN_INLINE double total(__m256d a) {
  alignas(32) double d[4];
  _mm256_store_pd(d, a);
  return (d[0] + d[1]) + (d[2] + d[3]);
}

}  // namespace

BN_AVX2 double sum_avx2(const float* p, int64_t n) {
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m256d lo, hi;
    widen(p + j, lo, hi);
    a0 += lo, a1 += hi;
    widen(p + j + 8, lo, hi);
    a2 += lo, a3 += hi;
  }
  double s = total((a0 + a1) + (a2 + a3));
  for (; j < n; j++) s += p[j];
  return s;
}

BN_AVX2 double sum_sq_dev_avx2(const float* p, int64_t n, double m) {
  const __m256d mv = _mm256_set1_pd(m);
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m256d lo, hi;
    widen(p + j, lo, hi);
    lo -= mv, hi -= mv;
    a0 = _mm256_fmadd_pd(lo, lo, a0), a1 = _mm256_fmadd_pd(hi, hi, a1);
    widen(p + j + 8, lo, hi);
    lo -= mv, hi -= mv;
    a2 = _mm256_fmadd_pd(lo, lo, a2), a3 = _mm256_fmadd_pd(hi, hi, a3);
  }
  double s = total((a0 + a1) + (a2 + a3));
  for (; j < n; j++) s += (double(p[j]) - m) * (double(p[j]) - m);
  return s;
}

BN_AVX2 void sum_grad_avx2(const float* q, const float* p, int64_t n, double m, double& sq, double& sqx) {
  const __m256d mv = _mm256_set1_pd(m);
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, x0 = s0, x1 = s0;
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256d qlo, qhi, plo, phi;
    widen(q + j, qlo, qhi);
    widen(p + j, plo, phi);
    s0 += qlo, s1 += qhi;
    x0 = _mm256_fmadd_pd(qlo, plo - mv, x0), x1 = _mm256_fmadd_pd(qhi, phi - mv, x1);
  }
  double a = total(s0 + s1), b = total(x0 + x1);
  for (; j < n; j++) {
    a += q[j];
    b += double(q[j]) * (double(p[j]) - m);
  }
  sq += a;
  sqx += b;
}

BN_AVX2 void input_grad_avx2(const float* q, const float* p, int64_t n, float k, float mg, float m, float kx,
                             float* o) {
  const __m256 kv = _mm256_set1_ps(k), mgv = _mm256_set1_ps(mg), mv = _mm256_set1_ps(m), kxv = _mm256_set1_ps(kx);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 qv = _mm256_loadu_ps(q + j), pv = _mm256_loadu_ps(p + j);
    _mm256_storeu_ps(o + j, _mm256_fnmadd_ps(pv - mv, kxv, kv * (qv - mgv)));
  }
  for (; j < n; j++) o[j] = k * (q[j] - mg) - (p[j] - m) * kx;
}

}  // namespace ember::bn
