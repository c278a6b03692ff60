// Contiguous elementwise loops with a bfloat16 operand, on AVX-512BW: the same per-element code as
// loops.h's AVX2 loops (the same widening, float math and rounding, so the same results), vectorized
// 16 lanes wide. GCC's AVX2 code for the bfloat16 <-> float32 conversions is bound by its shuffles:
// 512-bit vectors run these loops (relu, threshold_backward, add ...) 2.3-2.7x faster, near float32's
// memory-bound speed per byte. float16 is not taken here: without F16C its conversion does not vectorize.
#pragma once
#include <cstdint>
#include <type_traits>

#include "types/half.h"

#define EMBER_AVX512BW __attribute__((target("avx512f,avx512bw,fma,prefer-vector-width=512")))

namespace ember::loops {

template <class... T>
inline constexpr bool any_bf16 = (std::is_same_v<T, BFloat16> || ...);

// Whether this CPU runs the loops below (AVX-512F and BW); read once.
inline bool bf16_wide() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return has;
}

template <class O, class A, class F>
EMBER_AVX512BW void unary_contig_512(O* __restrict o, const A* __restrict a, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; i++) o[i] = f(a[i]);
}

// mode as binary_contig: 0 both contiguous, 1 a is a broadcast scalar, 2 b is a broadcast scalar
template <int mode, class O, class A, class B, class F>
EMBER_AVX512BW void binary_contig_512(O* __restrict o, const A* __restrict a, const B* __restrict b, int64_t n,
                                      const F& f) {
  if constexpr (mode == 0) {
    for (int64_t i = 0; i < n; i++) o[i] = f(a[i], b[i]);
  } else if constexpr (mode == 1) {
    const A av = *a;
    for (int64_t i = 0; i < n; i++) o[i] = f(av, b[i]);
  } else {
    const B bv = *b;
    for (int64_t i = 0; i < n; i++) o[i] = f(a[i], bv);
  }
}

}  // namespace ember::loops
