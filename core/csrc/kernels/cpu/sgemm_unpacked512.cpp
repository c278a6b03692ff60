// sgemm_unpacked::product512: the AVX-512 form of product (sgemm_unpacked.cpp) for machines that
// have it: a register block of up to 12 rows by 32 columns (24 accumulators of 16 floats) summed over k straight from
// row-major A and B, the last columns through lane masks. Twice AVX2's width per instruction, so
// the recurrent layers' per-step products (a few dozen rows) run near the FMA units' rate.
#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu/sgemm_unpacked.h"

namespace ember::sgemm_unpacked {

namespace {

#define SGEMM_AVX512 __attribute__((target("avx512f")))
#define SGEMM512_INLINE __attribute__((target("avx512f"), always_inline)) inline

constexpr int kRows = 12, kCols = 32;

template <int NV>
struct Row {
  __m512 lo, hi;  // value-initialized (zero) by the caller's {}
  SGEMM512_INLINE void fma(const float* a, __m512 b0, __m512 b1) {
    const __m512 ai = _mm512_set1_ps(*a);
    lo = _mm512_fmadd_ps(ai, b0, lo);
    if constexpr (NV == 2) hi = _mm512_fmadd_ps(ai, b1, hi);
  }
  SGEMM512_INLINE void store(float* c, bool accumulate, __mmask16 m0, __mmask16 m1) {
    put(c, lo, accumulate, m0);
    if constexpr (NV == 2) put(c + 16, hi, accumulate, m1);
  }
  SGEMM512_INLINE static void put(float* c, __m512 v, bool accumulate, __mmask16 m) {
    if (accumulate) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, c));
    _mm512_mask_storeu_ps(c, m, v);
  }
};

// C's MR x (16 NV) block; m0/m1 mask the lanes of each 16-column vector (all set when full).
template <int MR, int NV>
SGEMM_AVX512 void block(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
                        bool accumulate, __mmask16 m0, __mmask16 m1) {
  Row<NV> r0{}, r1{}, r2{}, r3{}, r4{}, r5{}, r6{}, r7{}, r8{}, r9{}, r10{}, r11{};
  const float* ap[kRows];
  for (int i = 0; i < kRows; i++) ap[i] = a + (i < MR ? i : 0) * lda;  // rows past MR are never read
  for (int64_t p = 0; p < k; p++) {
    const float* bp = b + p * ldb;
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, bp);
    const __m512 b1 = NV == 2 ? _mm512_maskz_loadu_ps(m1, bp + 16) : b0;
    r0.fma(ap[0] + p, b0, b1);
    if constexpr (MR > 1) r1.fma(ap[1] + p, b0, b1);
    if constexpr (MR > 2) r2.fma(ap[2] + p, b0, b1);
    if constexpr (MR > 3) r3.fma(ap[3] + p, b0, b1);
    if constexpr (MR > 4) r4.fma(ap[4] + p, b0, b1);
    if constexpr (MR > 5) r5.fma(ap[5] + p, b0, b1);
    if constexpr (MR > 6) r6.fma(ap[6] + p, b0, b1);
    if constexpr (MR > 7) r7.fma(ap[7] + p, b0, b1);
    if constexpr (MR > 8) r8.fma(ap[8] + p, b0, b1);
    if constexpr (MR > 9) r9.fma(ap[9] + p, b0, b1);
    if constexpr (MR > 10) r10.fma(ap[10] + p, b0, b1);
    if constexpr (MR > 11) r11.fma(ap[11] + p, b0, b1);
  }
  r0.store(c, accumulate, m0, m1);
  if constexpr (MR > 1) r1.store(c + ldc, accumulate, m0, m1);
  if constexpr (MR > 2) r2.store(c + 2 * ldc, accumulate, m0, m1);
  if constexpr (MR > 3) r3.store(c + 3 * ldc, accumulate, m0, m1);
  if constexpr (MR > 4) r4.store(c + 4 * ldc, accumulate, m0, m1);
  if constexpr (MR > 5) r5.store(c + 5 * ldc, accumulate, m0, m1);
  if constexpr (MR > 6) r6.store(c + 6 * ldc, accumulate, m0, m1);
  if constexpr (MR > 7) r7.store(c + 7 * ldc, accumulate, m0, m1);
  if constexpr (MR > 8) r8.store(c + 8 * ldc, accumulate, m0, m1);
  if constexpr (MR > 9) r9.store(c + 9 * ldc, accumulate, m0, m1);
  if constexpr (MR > 10) r10.store(c + 10 * ldc, accumulate, m0, m1);
  if constexpr (MR > 11) r11.store(c + 11 * ldc, accumulate, m0, m1);
}

using BlockFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t, bool, __mmask16,
                         __mmask16);

template <int MR>
BlockFn pick(int nv) {
  return nv == 2 ? block<MR, 2> : block<MR, 1>;
}

BlockFn pick(int rows, int nv) {
  switch (rows) {
    case 1:
      return pick<1>(nv);
    case 2:
      return pick<2>(nv);
    case 3:
      return pick<3>(nv);
    case 4:
      return pick<4>(nv);
    case 5:
      return pick<5>(nv);
    case 6:
      return pick<6>(nv);
    case 7:
      return pick<7>(nv);
    case 8:
      return pick<8>(nv);
    case 9:
      return pick<9>(nv);
    case 10:
      return pick<10>(nv);
    case 11:
      return pick<11>(nv);
    default:
      return pick<12>(nv);
  }
}

__mmask16 lanes(int64_t n) { return n >= 16 ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1u); }

}  // namespace

SGEMM_AVX512 void product512(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                             float* c, int64_t ldc, bool accumulate) {
  // Column panels outside, row blocks inside: a panel of B (k x 32) stays in cache across A's rows.
  for (int64_t j0 = 0; j0 < n; j0 += kCols) {
    const int64_t width = std::min<int64_t>(kCols, n - j0);
    const int nv = width > 16 ? 2 : 1;
    const __mmask16 m0 = lanes(width), m1 = lanes(width - 16);
    // row blocks of near-equal height (20 rows: 10 + 10, not 12 + 8), so none runs short of accumulators
    const int64_t blocks = (m + kRows - 1) / kRows, base = m / std::max<int64_t>(blocks, 1), extra = m - base * blocks;
    int64_t i0 = 0;
    for (int64_t q = 0; q < blocks; q++) {
      const int64_t rows = base + (q < extra ? 1 : 0);
      pick(int(rows), nv)(k, a + i0 * lda, lda, b + j0, ldb, c + i0 * ldc + j0, ldc, accumulate, m0, m1);
      i0 += rows;
    }
  }
}

}  // namespace ember::sgemm_unpacked
