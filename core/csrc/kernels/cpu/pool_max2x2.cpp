#include "kernels/cpu/pool_max2x2.h"

#include <immintrin.h>

#include "kernels/cpu/cpu_features.h"

namespace ember::pool {

namespace {

// The even and odd columns of 16 consecutive floats, each in order.
__attribute__((target("avx2"), always_inline)) inline void split(const float* p, __m256& even, __m256& odd) {
  const __m256 lo = _mm256_loadu_ps(p), hi = _mm256_loadu_ps(p + 8);
  // shuffle_ps works per 128-bit half: [0 2 8 10 | 4 6 12 14], then the 64-bit quarters reorder
  even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0x88)), 0xD8));
  odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0xDD)), 0xD8));
}

// Outputs ox .. ox+7 of output row oy.
__attribute__((target("avx2"), always_inline)) inline void eight(const float* plane, int64_t w, int64_t oy, int64_t ox,
                                                                 float* values, int64_t* indices) {
  const int64_t top = 2 * oy * w + 2 * ox;
  __m256 cand[4];
  split(plane + top, cand[0], cand[1]);
  split(plane + top + w, cand[2], cand[3]);
  // flat index of each window's first element, then +1, +w, +w+1 in window order
  const __m256i first = _mm256_add_epi32(_mm256_set1_epi32(int32_t(top)), _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14));
  const int32_t step[4] = {0, 1, int32_t(w), int32_t(w) + 1};
  __m256 best = cand[0];
  __m256i at = first;
  for (int i = 1; i < 4; i++) {
    // later wins when greater, or when NaN (so the last NaN stays; nothing beats a NaN after it)
    const __m256 take = _mm256_or_ps(_mm256_cmp_ps(cand[i], best, _CMP_GT_OQ), _mm256_cmp_ps(cand[i], cand[i], _CMP_UNORD_Q));
    best = _mm256_blendv_ps(best, cand[i], take);
    at = _mm256_blendv_epi8(at, _mm256_add_epi32(first, _mm256_set1_epi32(step[i])), _mm256_castps_si256(take));
  }
  _mm256_storeu_ps(values, best);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(indices), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(at)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(indices + 4), _mm256_cvtepi32_epi64(_mm256_extracti128_si256(at, 1)));
}

}  // namespace

bool max2x2_applies(int64_t h, int64_t w, int64_t oh, int64_t ow) {
  // 32-bit lanes hold the flat indices
  return ow >= 8 && 2 * oh <= h && 2 * ow <= w && h * w < (int64_t(1) << 31) && cpu_has_avx2();
}

__attribute__((target("avx2"))) void max2x2(const float* x, int64_t planes, int64_t h, int64_t w, int64_t oh,
                                            int64_t ow, float* values, int64_t* indices) {
  for (int64_t pl = 0; pl < planes; pl++) {
    const float* plane = x + pl * h * w;
    float* vp = values + pl * oh * ow;
    int64_t* ip = indices + pl * oh * ow;
    for (int64_t oy = 0; oy < oh; oy++) {
      const int64_t row = oy * ow;
      for (int64_t ox = 0; ox + 8 <= ow; ox += 8) eight(plane, w, oy, ox, vp + row + ox, ip + row + ox);
      // the last partial step overlaps the previous one: it rewrites some outputs with the same values
      if (ow % 8) eight(plane, w, oy, ow - 8, vp + row + ow - 8, ip + row + ow - 8);
    }
  }
}

}  // namespace ember::pool
