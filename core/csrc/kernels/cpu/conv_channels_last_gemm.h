// The matrix products and weight packing the channels-last convolutions (conv_nhwc.cpp for 2-D,
// conv_ndhwc.cpp for 3-D) share: in NHWC / NDHWC memory an output row times the kernel's taps is a
// product read straight from the input, so both only need C += A @ B at given row strides.
#pragma once
#include <cstdint>
#include <type_traits>
#include <vector>

#include "device/cpu_features.h"
#include "kernels/blas.h"
#include "kernels/cpu/sgemm_unpacked.h"

namespace ember::conv::channels_last {

// Whether float32 products run on the register kernels, which read A with any row stride (so taps
// and channels can be one sum even where the rows overlap).
inline bool register_kernels() { return cpu_has_avx512() || cpu_has_avx2(); }

// C (m x n, ldc) += A (m x k, lda) @ B (k x n, ldb), on the calling thread.
template <class T>
void mm_acc(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    if (cpu_has_avx512()) return sgemm_unpacked::product512(m, n, k, a, lda, b, ldb, c, ldc, true);
    if (cpu_has_avx2()) return sgemm_unpacked::product(m, n, k, a, lda, b, ldb, c, ldc, true);
  }
  blas::gemm_serial<T>(blas::Op::N, blas::Op::N, m, n, k, T(1), a, lda, b, ldb, T(1), c, ldc);
}

// w (O, C/g, *kernel), contiguous, with `taps` kernel positions, packed per (group, tap) as a
// (C/g x O/g) matrix; `flip` reverses the taps (the kernel rotated by 180 degrees in every spatial
// dim) and `transpose` packs each matrix as (O/g x C/g): both together give the forward weight of
// the stride-1 transposed convolution.
template <class T>
std::vector<T> pack(const T* w, int64_t o_ch, int64_t cg, int64_t taps, int64_t groups, bool transpose, bool flip) {
  const int64_t og = o_ch / groups;
  std::vector<T> out(size_t(o_ch * cg * taps));
  for (int64_t g = 0; g < groups; g++)
    for (int64_t o = 0; o < og; o++)
      for (int64_t c = 0; c < cg; c++)
        for (int64_t t = 0; t < taps; t++) {
          const T v = w[((g * og + o) * cg + c) * taps + (flip ? taps - 1 - t : t)];
          const int64_t at = (g * taps + t) * cg * og + (transpose ? o * cg + c : c * og + o);
          out[size_t(at)] = v;
        }
  return out;
}

}  // namespace ember::conv::channels_last
