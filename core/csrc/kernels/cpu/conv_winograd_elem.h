// The element types the Winograd convolution (conv_winograd.h) reads and writes: float32, or bfloat16
// (its bits, uint16_t) whose tiles are widened to float32 as they load and whose results are rounded
// to bfloat16 once as they store, so the arithmetic between is float32's own and a bfloat16 result
// is the float32 one rounded (to nearest even, a NaN quieted, as BFloat16::from_float) with no
// float32 copies of the activations. Internal to conv_winograd*.cpp.
#pragma once
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/conv_winograd_1d.h"
#include "types/half.h"

namespace ember::conv::winograd {

inline float widen(float v) { return v; }
inline float widen(uint16_t v) { return bits_float(uint32_t(v) << 16); }

// 8 consecutive elements as floats.
WINO_INLINE __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
WINO_INLINE __m256 load8(const uint16_t* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

// 4 consecutive elements as floats.
WINO_INLINE __m128 load4(const float* p) { return _mm_loadu_ps(p); }
WINO_INLINE __m128 load4(const uint16_t* p) {
  const __m128i h = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return _mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32(h), 16));
}

// Each lane's float rounded to bfloat16, its bits in the lane's low half (upper half zero): the
// bits BFloat16::from_float gives. Shuffles keep lanes' bits, so the result may be transposed as
// floats before it is packed (pack4 / pack8).
WINO_INLINE __m256 round_bf16(__m256 v) {
  const __m256i u = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb), 16);
  const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                         _mm256_set1_epi32(0x7f800000));  // both sides non-negative
  return _mm256_castsi256_ps(_mm256_blendv_epi8(rounded, quiet, nan));
}

// 4 lanes of round_bf16's bits -> 4 bfloat16s at p.
WINO_INLINE void pack4(uint16_t* p, __m128 bits) {
  const __m128i b = _mm_castps_si128(bits);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packus_epi32(b, b));
}

// 8 lanes of round_bf16's bits -> 8 bfloat16s at p.
WINO_INLINE void pack8(uint16_t* p, __m256 bits) {
  const __m256i b = _mm256_castps_si256(bits);
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(b, b), 0x08);  // qwords 0, 2 low
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
}

// Stores of float results: as they are for float, rounded for bfloat16.
WINO_INLINE void store8(float* p, __m256 v) { _mm256_storeu_ps(p, v); }
WINO_INLINE void store8(uint16_t* p, __m256 v) { pack8(p, round_bf16(v)); }
WINO_INLINE void store1(float* p, float v) { *p = v; }
WINO_INLINE void store1(uint16_t* p, float v) { *p = BFloat16::from_float(v); }

}  // namespace ember::conv::winograd
