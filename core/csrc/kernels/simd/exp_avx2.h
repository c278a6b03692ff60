// exp over 8 floats with AVX2+FMA: range reduction x = n*ln2 + r, a degree-7 polynomial for e^r on
// |r| <= ln2/2, then scaling by 2^n through the exponent bits. Within 2 ulp of expf; lanes outside
// the normal range (overflow, subnormal results, NaN) are redone with std::exp.
#pragma once
#include <immintrin.h>

#include <cmath>

#define EMBER_AVX2 __attribute__((target("avx2,fma")))

namespace ember::vec {

struct Exp8 {
  EMBER_AVX2 static inline __m256 apply(__m256 x) {
    const __m256 log2e = _mm256_set1_ps(1.44269504088896341f);
    const __m256 ln2_hi = _mm256_set1_ps(0.693359375f);
    const __m256 ln2_lo = _mm256_set1_ps(-2.12194440e-4f);
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, log2e), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, ln2_hi, x);
    r = _mm256_fnmadd_ps(n, ln2_lo, r);
    // Taylor coefficients 1/k! for k = 7..2, Horner form.
    __m256 p = _mm256_set1_ps(1.0f / 5040.0f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r);
    p = _mm256_add_ps(p, _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
    // Outside [-87.3, 88.7] (or NaN) the exponent trick fails: recompute those lanes exactly.
    __m256 ok = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(88.7f), _CMP_LE_OQ),
                              _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_GE_OQ));
    if (__builtin_expect(_mm256_movemask_ps(ok) != 0xff, 0)) {
      alignas(32) float xs[8], ys[8];
      _mm256_store_ps(xs, x);
      _mm256_store_ps(ys, y);
      int m = _mm256_movemask_ps(ok);
      for (int i = 0; i < 8; i++)
        if (!(m >> i & 1)) ys[i] = std::exp(xs[i]);
      y = _mm256_load_ps(ys);
    }
    return y;
  }
};

}  // namespace ember::vec
