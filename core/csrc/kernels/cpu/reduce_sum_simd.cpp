// AVX2 leaves of the float sums: contiguous runs folded into four vector accumulators (optionally
// skipping NaNs for nansum), and the row-add of vertical reductions.
#include <immintrin.h>

#include "kernels/cpu/reduce_common.h"

namespace ember::sumk {

namespace {
EMBER_AVX2 inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
EMBER_AVX2 inline double hsum(__m256d v) {
  __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
  return _mm_cvtsd_f64(s);
}
// v with NaN lanes zeroed.
EMBER_AVX2 inline __m256 no_nan(__m256 v) { return _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q)); }
EMBER_AVX2 inline __m256d no_nan(__m256d v) { return _mm256_and_pd(v, _mm256_cmp_pd(v, v, _CMP_ORD_Q)); }
}  // namespace

EMBER_AVX2 float leaf_f32_avx2(const float* p, int64_t n, bool skip_nan) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  if (skip_nan) {
    for (; i + 32 <= n; i += 32) {
      a0 = _mm256_add_ps(a0, no_nan(_mm256_loadu_ps(p + i)));
      a1 = _mm256_add_ps(a1, no_nan(_mm256_loadu_ps(p + i + 8)));
      a2 = _mm256_add_ps(a2, no_nan(_mm256_loadu_ps(p + i + 16)));
      a3 = _mm256_add_ps(a3, no_nan(_mm256_loadu_ps(p + i + 24)));
    }
    for (; i + 8 <= n; i += 8) a0 = _mm256_add_ps(a0, no_nan(_mm256_loadu_ps(p + i)));
  } else {
    for (; i + 32 <= n; i += 32) {
      a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p + i));
      a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + i + 8));
      a2 = _mm256_add_ps(a2, _mm256_loadu_ps(p + i + 16));
      a3 = _mm256_add_ps(a3, _mm256_loadu_ps(p + i + 24));
    }
    for (; i + 8 <= n; i += 8) a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p + i));
  }
  float s = hsum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  for (; i < n; i++)
    if (!skip_nan || p[i] == p[i]) s += p[i];
  return s;
}

EMBER_AVX2 double leaf_f64_avx2(const double* p, int64_t n, bool skip_nan) {
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  if (skip_nan) {
    for (; i + 16 <= n; i += 16) {
      a0 = _mm256_add_pd(a0, no_nan(_mm256_loadu_pd(p + i)));
      a1 = _mm256_add_pd(a1, no_nan(_mm256_loadu_pd(p + i + 4)));
      a2 = _mm256_add_pd(a2, no_nan(_mm256_loadu_pd(p + i + 8)));
      a3 = _mm256_add_pd(a3, no_nan(_mm256_loadu_pd(p + i + 12)));
    }
    for (; i + 4 <= n; i += 4) a0 = _mm256_add_pd(a0, no_nan(_mm256_loadu_pd(p + i)));
  } else {
    for (; i + 16 <= n; i += 16) {
      a0 = _mm256_add_pd(a0, _mm256_loadu_pd(p + i));
      a1 = _mm256_add_pd(a1, _mm256_loadu_pd(p + i + 4));
      a2 = _mm256_add_pd(a2, _mm256_loadu_pd(p + i + 8));
      a3 = _mm256_add_pd(a3, _mm256_loadu_pd(p + i + 12));
    }
    for (; i + 4 <= n; i += 4) a0 = _mm256_add_pd(a0, _mm256_loadu_pd(p + i));
  }
  double s = hsum(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
  for (; i < n; i++)
    if (!skip_nan || p[i] == p[i]) s += p[i];
  return s;
}

EMBER_AVX2 void add_rows_f32_avx2(float* __restrict acc, const float* __restrict p, int64_t m) {
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) _mm256_storeu_ps(acc + i, _mm256_add_ps(_mm256_loadu_ps(acc + i), _mm256_loadu_ps(p + i)));
  for (; i < m; i++) acc[i] += p[i];
}

EMBER_AVX2 void add_rows_f64_avx2(double* __restrict acc, const double* __restrict p, int64_t m) {
  int64_t i = 0;
  for (; i + 4 <= m; i += 4) _mm256_storeu_pd(acc + i, _mm256_add_pd(_mm256_loadu_pd(acc + i), _mm256_loadu_pd(p + i)));
  for (; i < m; i++) acc[i] += p[i];
}

}  // namespace ember::sumk
