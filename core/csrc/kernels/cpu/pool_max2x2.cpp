#include "kernels/cpu/pool_max2x2.h"

#include <immintrin.h>

#include <algorithm>
#include <limits>

#include "device/cpu_features.h"

namespace ember::pool {

namespace {

// The even and odd columns of 16 consecutive floats, each in order.
__attribute__((target("avx2"), always_inline)) inline void split(const float* p, __m256& even, __m256& odd) {
  const __m256 lo = _mm256_loadu_ps(p), hi = _mm256_loadu_ps(p + 8);
  // shuffle_ps works per 128-bit half: [0 2 8 10 | 4 6 12 14], then the 64-bit quarters reorder
  even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0x88)), 0xD8));
  odd = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0xDD)), 0xD8));
}

// Lanes where cand beats best (greater, or NaN: so the last NaN stays, nothing beats a NaN after
// it) take cand and its index.
__attribute__((target("avx2"), always_inline)) inline void keep_max(__m256& best, __m256i& at, __m256 cand,
                                                                    __m256i idx) {
  const __m256 take = _mm256_or_ps(_mm256_cmp_ps(cand, best, _CMP_GT_OQ), _mm256_cmp_ps(cand, cand, _CMP_UNORD_Q));
  best = _mm256_blendv_ps(best, cand, take);
  at = _mm256_blendv_epi8(at, idx, _mm256_castps_si256(take));
}

// 8 maxima and their indices (widened to int64).
__attribute__((target("avx2"), always_inline)) inline void store8(__m256 best, __m256i at, float* values,
                                                                  int64_t* indices) {
  _mm256_storeu_ps(values, best);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(indices), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(at)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(indices + 4), _mm256_cvtepi32_epi64(_mm256_extracti128_si256(at, 1)));
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
  for (int i = 1; i < 4; i++) keep_max(best, at, cand[i], _mm256_add_epi32(first, _mm256_set1_epi32(step[i])));
  store8(best, at, values, indices);
}

// Window (3x3, stride 2, padding 1) maxima for outputs ox .. ox+7 of output row oy, over the window
// rows [r_lo, r_hi) (the ones inside the plane); columns 2 ox - 1 .. 2 ox + 16 must lie in the row.
__attribute__((target("avx2"), always_inline)) inline void eight3x3(const float* plane, int64_t w, int64_t oy,
                                                                    int64_t ox, int r_lo, int r_hi, float* values,
                                                                    int64_t* indices) {
  const int64_t corner = (2 * oy - 1) * w + 2 * ox - 1;  // the window's top-left, padding included
  const __m256i lanes = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  __m256 best = _mm256_setzero_ps();
  __m256i at = _mm256_setzero_si256();
  for (int r = r_lo; r < r_hi; r++) {
    const int64_t row = corner + r * w;
    __m256 cand[3], unused;
    split(plane + row, cand[0], cand[1]);
    split(plane + row + 2, cand[2], unused);
    for (int c = 0; c < 3; c++) {
      const __m256i idx = _mm256_add_epi32(_mm256_set1_epi32(int32_t(row + c)), lanes);
      if (r == r_lo && c == 0) {
        best = cand[0];
        at = idx;
        continue;
      }
      keep_max(best, at, cand[c], idx);
    }
  }
  store8(best, at, values, indices);
}

// The same for one output at the plane's edges: the window clipped to the plane, scanned in order.
void one3x3(const float* plane, int64_t h, int64_t w, int64_t oy, int64_t ox, float* value, int64_t* index) {
  const int64_t y0 = std::max<int64_t>(0, 2 * oy - 1), y1 = std::min(h, 2 * oy + 2);
  const int64_t x0 = std::max<int64_t>(0, 2 * ox - 1), x1 = std::min(w, 2 * ox + 2);
  float best = -std::numeric_limits<float>::infinity();
  int64_t at = y0 * w + x0;
  for (int64_t y = y0; y < y1; y++)
    for (int64_t x = x0; x < x1; x++) {
      const float v = plane[y * w + x];
      if (v > best || v != v) {
        best = v;
        at = y * w + x;
      }
    }
  *value = best;
  *index = at;
}

// Plane pl's input, and where its maxima and their indices go.
struct Plane {
  const float* in;
  float* values;
  int64_t* indices;
};
inline Plane plane_at(const float* x, float* values, int64_t* indices, int64_t pl, int64_t in_size, int64_t out_size) {
  return {x + pl * in_size, values + pl * out_size, indices + pl * out_size};
}

}  // namespace

bool max3x3s2_applies(int64_t h, int64_t w, int64_t oh, int64_t ow) {
  // the first vector step (outputs 1..8) reads columns 1 .. 18
  return oh == (h - 1) / 2 + 1 && ow == (w - 1) / 2 + 1 && w >= 19 && h * w < (int64_t(1) << 31) && cpu_has_avx2();
}

__attribute__((target("avx2"))) void max3x3s2(const float* x, int64_t planes, int64_t h, int64_t w, int64_t oh,
                                              int64_t ow, float* values, int64_t* indices) {
  const int64_t last = (w - 17) / 2;  // the last ox whose 8 outputs a vector step can take
  for (int64_t pl = 0; pl < planes; pl++) {
    const auto [plane, vp, ip] = plane_at(x, values, indices, pl, h * w, oh * ow);
    for (int64_t oy = 0; oy < oh; oy++) {
      const int64_t row = oy * ow;
      const int r_lo = oy == 0 ? 1 : 0, r_hi = int(std::min<int64_t>(3, h - (2 * oy - 1)));
      int64_t ox = 1;
      for (; ox <= last; ox += 8) eight3x3(plane, w, oy, ox, r_lo, r_hi, vp + row + ox, ip + row + ox);
      // outputs past the last whole step: one more overlapping step, then single ones at the edge
      if (ox < last + 8 && last >= 1) eight3x3(plane, w, oy, last, r_lo, r_hi, vp + row + last, ip + row + last);
      one3x3(plane, h, w, oy, 0, vp + row, ip + row);
      for (int64_t e = last + 8; e < ow; e++) one3x3(plane, h, w, oy, e, vp + row + e, ip + row + e);
    }
  }
}

bool max2x2_applies(int64_t h, int64_t w, int64_t oh, int64_t ow) {
  // 32-bit lanes hold the flat indices
  return ow >= 8 && 2 * oh <= h && 2 * ow <= w && h * w < (int64_t(1) << 31) && cpu_has_avx2();
}

__attribute__((target("avx2"))) void max2x2(const float* x, int64_t planes, int64_t h, int64_t w, int64_t oh,
                                            int64_t ow, float* values, int64_t* indices) {
  for (int64_t pl = 0; pl < planes; pl++) {
    const auto [plane, vp, ip] = plane_at(x, values, indices, pl, h * w, oh * ow);
    for (int64_t oy = 0; oy < oh; oy++) {
      const int64_t row = oy * ow;
      for (int64_t ox = 0; ox + 8 <= ow; ox += 8) eight(plane, w, oy, ox, vp + row + ox, ip + row + ox);
      // the last partial step overlaps the previous one: it rewrites some outputs with the same values
      if (ow % 8) eight(plane, w, oy, ow - 8, vp + row + ow - 8, ip + row + ow - 8);
    }
  }
}

}  // namespace ember::pool
