// sigmoid and tanh over 8 (AVX2) and 16 (AVX-512) floats, built on the vector exps. sigmoid is
// 1 / (1 + e^-x) as the scalar functor computes it. tanh is 1 - 2 / (e^2|x| + 1) with x's sign for |x| >= 0.5
// (no cancellation there: tanh(0.5) = 0.46) and its odd Taylor series through x^17 below, whose first dropped
// term is under 1e-8 of the result; tanh saturates to +-1 (e^2|x| = inf) and keeps NaN.
#pragma once
#include <immintrin.h>

#include "kernels/simd/exp_avx2.h"
#include "kernels/simd/exp_avx512.h"

namespace ember::vec {

namespace tanh_detail {
// tanh(x) = x * (1 + x^2 * (c3 + x^2 * (c5 + ...))), Taylor coefficients of x^3 .. x^17
constexpr float kCoef[8] = {
    -1.0f / 3.0f,         2.0f / 15.0f,          -17.0f / 315.0f,           62.0f / 2835.0f,
    -1382.0f / 155925.0f, 21844.0f / 6081075.0f, -929569.0f / 638512875.0f, 6404582.0f / 10854718875.0f};
}  // namespace tanh_detail

struct Sigmoid8 {
  EMBER_AVX2 static inline __m256 apply(__m256 x) {
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(one, _mm256_add_ps(one, Exp8::apply(_mm256_sub_ps(_mm256_setzero_ps(), x))));
  }
};

struct Sigmoid16 {
  EMBER_AVX512 static inline __m512 apply(__m512 x) {
    const __m512 one = _mm512_set1_ps(1.0f);
    return _mm512_div_ps(one, _mm512_add_ps(one, Exp16::apply(_mm512_sub_ps(_mm512_setzero_ps(), x))));
  }
};

struct Tanh8 {
  EMBER_AVX2 static inline __m256 apply(__m256 x) {
    const __m256 sign = _mm256_and_ps(x, _mm256_set1_ps(-0.0f));
    const __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
    const __m256 e = Exp8::apply(_mm256_mul_ps(two, ax));
    const __m256 big = _mm256_or_ps(_mm256_sub_ps(one, _mm256_div_ps(two, _mm256_add_ps(e, one))), sign);
    const __m256 x2 = _mm256_mul_ps(x, x);
    __m256 p = _mm256_set1_ps(tanh_detail::kCoef[7]);
    for (int i = 6; i >= 0; i--) p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(tanh_detail::kCoef[i]));
    const __m256 small = _mm256_or_ps(_mm256_fmadd_ps(_mm256_mul_ps(p, x2), ax, ax), sign);  // keeps -0
    // NaN compares false, so it takes the first branch, where e^NaN keeps it NaN
    return _mm256_blendv_ps(big, small, _mm256_cmp_ps(ax, _mm256_set1_ps(0.5f), _CMP_LT_OQ));
  }
};

struct Tanh16 {
  EMBER_AVX512 static inline __m512 apply(__m512 x) {
    const __m512i sign_bit = _mm512_set1_epi32(int(0x80000000u));
    const __m512i xi = _mm512_castps_si512(x);
    const __m512 ax = _mm512_castsi512_ps(_mm512_andnot_si512(sign_bit, xi));
    const __m512 one = _mm512_set1_ps(1.0f), two = _mm512_set1_ps(2.0f);
    const __m512 e = Exp16::apply(_mm512_mul_ps(two, ax));
    const __m512 mag = _mm512_sub_ps(one, _mm512_div_ps(two, _mm512_add_ps(e, one)));
    const __m512 big = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(mag), _mm512_and_si512(xi, sign_bit)));
    const __m512 x2 = _mm512_mul_ps(x, x);
    __m512 p = _mm512_set1_ps(tanh_detail::kCoef[7]);
    for (int i = 6; i >= 0; i--) p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(tanh_detail::kCoef[i]));
    const __m512 small = _mm512_castsi512_ps(_mm512_or_si512(
        _mm512_castps_si512(_mm512_fmadd_ps(_mm512_mul_ps(p, x2), ax, ax)), _mm512_and_si512(xi, sign_bit)));
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.5f), _CMP_LT_OQ), big, small);
  }
};

}  // namespace ember::vec
