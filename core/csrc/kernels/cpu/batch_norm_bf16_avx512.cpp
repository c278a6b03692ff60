#include "kernels/cpu/batch_norm_bf16_avx512.h"

#include <immintrin.h>

#include <cmath>
#include <cstring>

namespace ember::bn::bf16 {

namespace {

#define BN_AVX512 __attribute__((target("avx512f")))
#define BN_INLINE __attribute__((target("avx512f"), always_inline)) inline

float widen1(uint16_t h) {
  const uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t round1(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// The 16 bfloat16 at p as floats.
BN_INLINE __m512 widen(const uint16_t* p) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

// 16 floats rounded to nearest even bfloat16 at y (a NaN keeps its sign and top payload, quieted).
BN_INLINE void round_store(__m512 v, uint16_t* y) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb), 16);
  const __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
  const __mmask16 nan =
      _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(y),
                      _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, rounded, quiet)));
}

BN_INLINE __m512d lo_pd(__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
BN_INLINE __m512d hi_pd(__m512 v) {
  return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

}  // namespace

BN_AVX512 double sum(const uint16_t* p, int64_t n) {
  __m512d a0 = _mm512_setzero_pd(), a1 = a0;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512 v = widen(p + j);
    a0 = _mm512_add_pd(a0, lo_pd(v)), a1 = _mm512_add_pd(a1, hi_pd(v));
  }
  double s = _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
  for (; j < n; j++) s += widen1(p[j]);
  return s;
}

BN_AVX512 double sum_sq_dev(const uint16_t* p, int64_t n, double m) {
  const __m512d mv = _mm512_set1_pd(m);
  __m512d a0 = _mm512_setzero_pd(), a1 = a0;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512 v = widen(p + j);
    const __m512d lo = _mm512_sub_pd(lo_pd(v), mv), hi = _mm512_sub_pd(hi_pd(v), mv);
    a0 = _mm512_fmadd_pd(lo, lo, a0), a1 = _mm512_fmadd_pd(hi, hi, a1);
  }
  double s = _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
  for (; j < n; j++) s += (double(widen1(p[j])) - m) * (double(widen1(p[j])) - m);
  return s;
}

BN_AVX512 void affine(const uint16_t* p, int64_t n, float scale, float shift, uint16_t* y) {
  const __m512 sv = _mm512_set1_ps(scale), bv = _mm512_set1_ps(shift);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) round_store(_mm512_fmadd_ps(widen(p + j), sv, bv), y + j);
  for (; j < n; j++) y[j] = round1(std::fma(widen1(p[j]), scale, shift));
}

BN_AVX512 void sum_grad(const uint16_t* q, const uint16_t* p, int64_t n, double m, double& sq, double& sqx) {
  const __m512d mv = _mm512_set1_pd(m);
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, x0 = s0, x1 = s0;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512 qv = widen(q + j), pv = widen(p + j);
    const __m512d qlo = lo_pd(qv), qhi = hi_pd(qv);
    s0 = _mm512_add_pd(s0, qlo), s1 = _mm512_add_pd(s1, qhi);
    x0 = _mm512_fmadd_pd(qlo, _mm512_sub_pd(lo_pd(pv), mv), x0);
    x1 = _mm512_fmadd_pd(qhi, _mm512_sub_pd(hi_pd(pv), mv), x1);
  }
  double a = _mm512_reduce_add_pd(_mm512_add_pd(s0, s1)), b = _mm512_reduce_add_pd(_mm512_add_pd(x0, x1));
  for (; j < n; j++) {
    a += widen1(q[j]);
    b += double(widen1(q[j])) * (double(widen1(p[j])) - m);
  }
  sq += a;
  sqx += b;
}

BN_AVX512 void input_grad(const uint16_t* q, const uint16_t* p, int64_t n, float k, float mg, float m, float kx,
                          uint16_t* o) {
  const __m512 kv = _mm512_set1_ps(k), mgv = _mm512_set1_ps(mg), mv = _mm512_set1_ps(m), kxv = _mm512_set1_ps(kx);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512 qv = widen(q + j), pv = widen(p + j);
    round_store(_mm512_fnmadd_ps(_mm512_sub_ps(pv, mv), kxv, _mm512_mul_ps(kv, _mm512_sub_ps(qv, mgv))), o + j);
  }
  for (; j < n; j++) o[j] = round1(std::fma(-(widen1(p[j]) - m), kx, k * (widen1(q[j]) - mg)));
}

}  // namespace ember::bn::bf16
