// The AVX512_BF16 parts of the bfloat16 product (gemm_bf16.h): packing A and B into pairs of
// bfloat16 (one uint32 per pair of k), the 12 x 32 micro-kernel (24 float32 accumulators, one
// vdpbf16ps adds two exact products per lane), and the stores that round once to bfloat16.
#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu/gemm_bf16.h"
#include "types/half.h"

#define EMBER_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

// GCC 12 flags the AVX-512 intrinsics' internal _mm512_undefined_* as maybe-uninitialized.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace ember::bf16gemm::detail {

namespace {

inline uint32_t pair(uint16_t lo, uint16_t hi) { return uint32_t(lo) | (uint32_t(hi) << 16); }

// Element (i, kk) of x, zero outside rows x cols.
inline uint16_t at(In x, int64_t rows, int64_t cols, int64_t i, int64_t kk) {
  return i < rows && kk < cols ? x.p[i * x.rs + kk * x.cs] : uint16_t(0);
}

// float32 to bfloat16 bits, round to nearest even, NaN kept quiet (as types/half.h, 16 lanes).
EMBER_BF16_TARGET inline __m256i round16(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
  const __mmask16 nan =
      _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  const __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
  return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, rounded, quiet));
}

EMBER_BF16_TARGET inline __m512 widen16(__m256i h) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

// bf16 words <-> float by types/half.h's rules (round to nearest even, NaN kept quiet)
inline float load_c(const uint16_t* p) { return bits_float(uint32_t(*p) << 16); }
inline float load_c(const float* p) { return *p; }
inline void store_c(uint16_t* p, float v) { *p = BFloat16::from_float(v); }
inline void store_c(float* p, float v) { *p = v; }

EMBER_BF16_TARGET inline __m512 load_c16(__mmask16 k, const uint16_t* p) {
  return widen16(_mm256_maskz_loadu_epi16(k, p));
}
EMBER_BF16_TARGET inline __m512 load_c16(__mmask16 k, const float* p) { return _mm512_maskz_loadu_ps(k, p); }
EMBER_BF16_TARGET inline void store_c16(__mmask16 k, uint16_t* p, __m512 v) {
  _mm256_mask_storeu_epi16(p, k, round16(v));
}
EMBER_BF16_TARGET inline void store_c16(__mmask16 k, float* p, __m512 v) { _mm512_mask_storeu_ps(p, k, v); }

template <class T>
EMBER_BF16_TARGET void store_tile(const float* tile, int64_t rows, int64_t cols, float alpha, float beta, Out<T> c,
                                  int64_t i0, int64_t j0, const float* row_bias) {
  if (c.cs != 1) {
    for (int64_t r = 0; r < rows; r++)
      for (int64_t j = 0; j < cols; j++) {
        T* dst = c.p + (i0 + r) * c.rs + (j0 + j) * c.cs;
        float v = alpha * tile[r * kNR + j];
        if (beta != 0.f) v += beta * load_c(dst);
        if (row_bias) v += row_bias[i0 + r];
        store_c(dst, v);
      }
    return;
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  for (int64_t r = 0; r < rows; r++) {
    T* row = c.p + (i0 + r) * c.rs + j0;
    const __m512 bias = _mm512_set1_ps(row_bias ? row_bias[i0 + r] : 0.f);
    for (int64_t j = 0; j < cols; j += 16) {
      const __mmask16 k = cols - j >= 16 ? __mmask16(0xffff) : __mmask16((1u << (cols - j)) - 1);
      __m512 v = _mm512_fmadd_ps(va, _mm512_loadu_ps(tile + r * kNR + j), bias);
      if (beta != 0.f) v = _mm512_fmadd_ps(vb, load_c16(k, row + j), v);
      store_c16(k, row + j, v);
    }
  }
}

// r[0..15] (16 words each) transposed in place: r[j] holds word j of every input row.
EMBER_BF16_TARGET inline void transpose16(__m512i r[16]) {
  __m512i b[16], c[16];
  for (int i = 0; i < 16; i += 2) {  // words of row pairs interleaved within 128-bit lanes
    b[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    b[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {  // c[i + m], lane L: word 4L + m of rows i .. i+3
    c[i] = _mm512_unpacklo_epi64(b[i], b[i + 2]);
    c[i + 1] = _mm512_unpackhi_epi64(b[i], b[i + 2]);
    c[i + 2] = _mm512_unpacklo_epi64(b[i + 1], b[i + 3]);
    c[i + 3] = _mm512_unpackhi_epi64(b[i + 1], b[i + 3]);
  }
  for (int m = 0; m < 4; m++) {  // gather lane L of c[m], c[4 + m], c[8 + m], c[12 + m]
    const __m512i d = _mm512_shuffle_i32x4(c[m], c[4 + m], 0x88), e = _mm512_shuffle_i32x4(c[m], c[4 + m], 0xdd);
    const __m512i f = _mm512_shuffle_i32x4(c[8 + m], c[12 + m], 0x88);
    const __m512i g = _mm512_shuffle_i32x4(c[8 + m], c[12 + m], 0xdd);
    r[m] = _mm512_shuffle_i32x4(d, f, 0x88);
    r[8 + m] = _mm512_shuffle_i32x4(d, f, 0xdd);
    r[4 + m] = _mm512_shuffle_i32x4(e, g, 0x88);
    r[12 + m] = _mm512_shuffle_i32x4(e, g, 0xdd);
  }
}

// dst[q * ld + j] (q < np, j < rows <= 16, under `keep`) = the 32-bit word q of src[j]: rows of
// pairs turned into pairs of rows, 16 pairs at a time.
EMBER_BF16_TARGET void transpose_pairs(const uint16_t* const* src, int rows, int64_t np, uint32_t* dst, int64_t ld,
                                       __mmask16 keep) {
  for (int64_t q = 0; q < np; q += 16) {
    const int64_t count = std::min<int64_t>(16, np - q);
    const __mmask16 load = count == 16 ? __mmask16(0xffff) : __mmask16((1u << count) - 1);
    __m512i r[16];
    for (int j = 0; j < 16; j++)
      r[j] = j < rows ? _mm512_maskz_loadu_epi32(load, src[j] + 2 * q) : _mm512_setzero_si512();
    transpose16(r);
    for (int64_t t = 0; t < count; t++) _mm512_mask_storeu_epi32(dst + (q + t) * ld, keep, r[t]);
  }
}

}  // namespace

EMBER_BF16_TARGET void pack_a(In a, int64_t m, int64_t k, int64_t i0, int64_t p0, int64_t np, uint32_t* dst) {
  const bool full = i0 + kMR <= m && 2 * (p0 + np) <= k;
  if (full && a.cs == 1) {  // rows contiguous in k: a pair is one 32-bit load
    const uint16_t* rows[kMR];
    for (int64_t r = 0; r < kMR; r++) rows[r] = a.p + (i0 + r) * a.rs + 2 * p0;
    transpose_pairs(rows, kMR, np, dst, kMR, __mmask16((1u << kMR) - 1));
  } else if (full && a.rs == 1) {  // columns contiguous in i: two runs of kMR per pair
    for (int64_t q = 0; q < np; q++) {
      const uint16_t* x0 = a.p + i0 + 2 * (p0 + q) * a.cs;
      const uint16_t* x1 = x0 + a.cs;
      for (int64_t r = 0; r < kMR; r++) dst[q * kMR + r] = pair(x0[r], x1[r]);
    }
  } else {
    for (int64_t q = 0; q < np; q++)
      for (int64_t r = 0; r < kMR; r++) {
        const int64_t kk = 2 * (p0 + q);
        dst[q * kMR + r] = pair(at(a, m, k, i0 + r, kk), at(a, m, k, i0 + r, kk + 1));
      }
  }
}

EMBER_BF16_TARGET void pack_b(In b, int64_t k, int64_t n, int64_t j0, int64_t p0, int64_t np, uint32_t* dst) {
  const bool full = j0 + kNR <= n && 2 * (p0 + np) <= k;
  if (full && b.cs == 1) {  // rows contiguous in j: two rows of 32 interleaved by word
    const __m512i lo_idx = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8, 39, 7, 38, 6,
                                            37, 5, 36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
    const __m512i hi_idx = _mm512_add_epi16(lo_idx, _mm512_set1_epi16(16));
    for (int64_t q = 0; q < np; q++) {
      const uint16_t* r0 = b.p + 2 * (p0 + q) * b.rs + j0;
      const __m512i x0 = _mm512_loadu_si512(r0), x1 = _mm512_loadu_si512(r0 + b.rs);
      _mm512_storeu_si512(dst + q * kNR, _mm512_permutex2var_epi16(x0, lo_idx, x1));
      _mm512_storeu_si512(dst + q * kNR + 16, _mm512_permutex2var_epi16(x0, hi_idx, x1));
    }
  } else if (full && b.rs == 1) {  // columns contiguous in k: a pair is one 32-bit load
    const uint16_t* cols[kNR];
    for (int64_t j = 0; j < kNR; j++) cols[j] = b.p + (j0 + j) * b.cs + 2 * p0;
    transpose_pairs(cols, 16, np, dst, kNR, __mmask16(0xffff));
    transpose_pairs(cols + 16, 16, np, dst + 16, kNR, __mmask16(0xffff));
  } else {
    const In bt{b.p, b.cs, b.rs};  // read as (j, kk)
    for (int64_t q = 0; q < np; q++)
      for (int64_t j = 0; j < kNR; j++) {
        const int64_t kk = 2 * (p0 + q);
        dst[q * kNR + j] = pair(at(bt, n, k, j0 + j, kk), at(bt, n, k, j0 + j, kk + 1));
      }
  }
}

EMBER_BF16_TARGET void kernel(int64_t np, const uint32_t* a, const uint32_t* b, float* tile, bool accumulate) {
  __m512 c[kMR][2];
#pragma GCC unroll 12
  for (int r = 0; r < kMR; r++) c[r][0] = c[r][1] = _mm512_setzero_ps();
  for (int64_t q = 0; q < np; q++) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b), b1 = (__m512bh)_mm512_loadu_si512(b + 16);
#pragma GCC unroll 12
    for (int r = 0; r < kMR; r++) {
      const __m512bh ar = (__m512bh)_mm512_set1_epi32(int(a[r]));
      c[r][0] = _mm512_dpbf16_ps(c[r][0], ar, b0);
      c[r][1] = _mm512_dpbf16_ps(c[r][1], ar, b1);
    }
    a += kMR;
    b += kNR;
  }
#pragma GCC unroll 12
  for (int r = 0; r < kMR; r++) {
    float* row = tile + r * kNR;
    if (accumulate) {
      c[r][0] = _mm512_add_ps(c[r][0], _mm512_loadu_ps(row));
      c[r][1] = _mm512_add_ps(c[r][1], _mm512_loadu_ps(row + 16));
    }
    _mm512_storeu_ps(row, c[r][0]);
    _mm512_storeu_ps(row + 16, c[r][1]);
  }
}

void store(const float* tile, int64_t rows, int64_t cols, float alpha, float beta, Out<uint16_t> c, int64_t i0,
           int64_t j0, const float* row_bias) {
  store_tile(tile, rows, cols, alpha, beta, c, i0, j0, row_bias);
}

void store(const float* tile, int64_t rows, int64_t cols, float alpha, float beta, Out<float> c, int64_t i0, int64_t j0,
           const float* row_bias) {
  store_tile(tile, rows, cols, alpha, beta, c, i0, j0, row_bias);
}

}  // namespace ember::bf16gemm::detail
