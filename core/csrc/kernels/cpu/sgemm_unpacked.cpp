// The 6x16 register kernel: 12 accumulators (6 rows of A broadcast against two 8-wide vectors of
// a row of B) summed over k, then stored, with masked loads and stores for a last partial vector.
#include "kernels/cpu/sgemm_unpacked.h"

#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu/avx2_transpose.h"

namespace ember::sgemm_unpacked {

namespace {

#define SGEMM_AVX2 __attribute__((target("avx2,fma")))
#define SGEMM_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

constexpr int kRows = 6, kCols = 16;

// Row i's accumulators: named variables, not an array, so that GCC keeps all twelve in registers
// (with an array it stores them to the stack on every step).
template <int NV>
struct Row {
  __m256 lo, hi;  // value-initialized (zero) by the caller's {}
  SGEMM_INLINE void fma(const float* a, __m256 b0, __m256 b1) {
    const __m256 ai = _mm256_broadcast_ss(a);
    lo = _mm256_fmadd_ps(ai, b0, lo);
    if constexpr (NV == 2) hi = _mm256_fmadd_ps(ai, b1, hi);
  }
  template <bool kMasked>
  SGEMM_INLINE void store(float* c, bool accumulate, __m256i mask) {
    store_vector<kMasked && NV == 1>(c, lo, accumulate, mask);
    if constexpr (NV == 2) store_vector<kMasked>(c + 8, hi, accumulate, mask);
  }
  template <bool kMasked>
  SGEMM_INLINE static void store_vector(float* c, __m256 v, bool accumulate, __m256i mask) {
    if (accumulate) v += kMasked ? _mm256_maskload_ps(c, mask) : _mm256_loadu_ps(c);
    if constexpr (kMasked)
      _mm256_maskstore_ps(c, mask, v);
    else
      _mm256_storeu_ps(c, v);
  }
};

// C's MR x (8 NV) block, the last vector's lanes limited by `mask` when kMasked.
template <int MR, int NV, bool kMasked>
SGEMM_AVX2 void block(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
                      bool accumulate, __m256i mask) {
  Row<NV> r0{}, r1{}, r2{}, r3{}, r4{}, r5{};
  // rows past MR are never formed (they would point past A)
  const float *a0 = a, *a1 = MR > 1 ? a + lda : a, *a2 = MR > 2 ? a + 2 * lda : a, *a3 = MR > 3 ? a + 3 * lda : a,
              *a4 = MR > 4 ? a + 4 * lda : a, *a5 = MR > 5 ? a + 5 * lda : a;
  for (int64_t p = 0; p < k; p++) {
    const float* bp = b + p * ldb;
    const __m256 b0 = (kMasked && NV == 1) ? _mm256_maskload_ps(bp, mask) : _mm256_loadu_ps(bp);
    __m256 b1 = b0;
    if constexpr (NV == 2) b1 = kMasked ? _mm256_maskload_ps(bp + 8, mask) : _mm256_loadu_ps(bp + 8);
    r0.fma(a0 + p, b0, b1);
    if constexpr (MR > 1) r1.fma(a1 + p, b0, b1);
    if constexpr (MR > 2) r2.fma(a2 + p, b0, b1);
    if constexpr (MR > 3) r3.fma(a3 + p, b0, b1);
    if constexpr (MR > 4) r4.fma(a4 + p, b0, b1);
    if constexpr (MR > 5) r5.fma(a5 + p, b0, b1);
  }
  r0.template store<kMasked>(c, accumulate, mask);
  if constexpr (MR > 1) r1.template store<kMasked>(c + ldc, accumulate, mask);
  if constexpr (MR > 2) r2.template store<kMasked>(c + 2 * ldc, accumulate, mask);
  if constexpr (MR > 3) r3.template store<kMasked>(c + 3 * ldc, accumulate, mask);
  if constexpr (MR > 4) r4.template store<kMasked>(c + 4 * ldc, accumulate, mask);
  if constexpr (MR > 5) r5.template store<kMasked>(c + 5 * ldc, accumulate, mask);
}

using BlockFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t, bool, __m256i);

template <int MR>
BlockFn pick(int nv, bool masked) {
  if (nv == 2) return masked ? block<MR, 2, true> : block<MR, 2, false>;
  return masked ? block<MR, 1, true> : block<MR, 1, false>;
}

BlockFn pick(int rows, int nv, bool masked) {
  switch (rows) {
    case 1:
      return pick<1>(nv, masked);
    case 2:
      return pick<2>(nv, masked);
    case 3:
      return pick<3>(nv, masked);
    case 4:
      return pick<4>(nv, masked);
    case 5:
      return pick<5>(nv, masked);
    default:
      return pick<6>(nv, masked);
  }
}

}  // namespace

SGEMM_AVX2 void product(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                        float* c, int64_t ldc, bool accumulate) {
  // Column panels outside, row blocks inside: a panel of B (k x 16) stays in L1 across A's rows.
  for (int64_t j0 = 0; j0 < n; j0 += kCols) {
    const int width = int(std::min<int64_t>(kCols, n - j0)), nv = (width + 7) / 8, tail = width - 8 * (nv - 1);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(tail), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const BlockFn full = pick(kRows, nv, tail != 8);
    int64_t i0 = 0;
    for (; i0 + kRows <= m; i0 += kRows)
      full(k, a + i0 * lda, lda, b + j0, ldb, c + i0 * ldc + j0, ldc, accumulate, mask);
    if (i0 < m)
      pick(int(m - i0), nv, tail != 8)(k, a + i0 * lda, lda, b + j0, ldb, c + i0 * ldc + j0, ldc, accumulate, mask);
  }
}

SGEMM_AVX2 void transpose(int64_t m, int64_t n, const float* b, int64_t ldb, float* bt, int64_t ldbt) {
  int64_t i0 = 0;
  for (; i0 + 8 <= m; i0 += 8) {
    int64_t j0 = 0;
    for (; j0 + 8 <= n; j0 += 8) {
      __m256 r[8];
      for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(b + (i0 + i) * ldb + j0);
      avx2::transpose8(r);
      for (int j = 0; j < 8; j++) _mm256_storeu_ps(bt + (j0 + j) * ldbt + i0, r[j]);
    }
    for (; j0 < n; j0++)
      for (int64_t i = i0; i < i0 + 8; i++) bt[j0 * ldbt + i] = b[i * ldb + j0];
  }
  for (; i0 < m; i0++)
    for (int64_t j = 0; j < n; j++) bt[j * ldbt + i0] = b[i0 * ldb + j];
}

}  // namespace ember::sgemm_unpacked
