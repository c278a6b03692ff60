// bfloat16 matrix products on AVX512_BF16 (vdpbf16ps): float32 sums of exact bf16 products, rounded
// to bfloat16 once at the end (round to nearest even), as PyTorch computes them. gemm_bf16.cpp holds
// the blocking and threads, gemm_bf16_avx512.cpp the packing and the micro-kernel.
#pragma once
#include <cstdint>

#include "tensor/factory.h"

namespace ember::bf16gemm {

// True when the CPU has AVX512_BF16 and the path is on (EMBER_BF16_GEMM=0 at start, or
// set_enabled(false), turns it off: callers then compute through float32 as before).
bool available();
// Turns the path on or off (tests force the fallback); returns the previous setting.
bool set_enabled(bool on);

// A matrix read through strides: element (i, j) at p[i * rs + j * cs] (bfloat16 bits).
struct In {
  const uint16_t* p;
  int64_t rs, cs;
};
// The result: element (i, j) at p[i * rs + j * cs], bfloat16 bits or float32.
template <class T>
struct Out {
  T* p;
  int64_t rs, cs;
};

// C (m x n) = alpha * A (m x k) @ B (k x n) + beta * C + row_bias[i] (when row_bias is not null),
// summed in float32 and rounded once when C is bfloat16. beta == 0 ignores C (its NaNs too).
// Splits the work over ember's threads (on the caller inside a parallel region). Needs available().
void gemm(int64_t m, int64_t n, int64_t k, float alpha, In a, In b, float beta, Out<uint16_t> c,
          const float* row_bias = nullptr);
void gemm(int64_t m, int64_t n, int64_t k, float alpha, In a, In b, float beta, Out<float> c,
          const float* row_bias = nullptr);

// A (m x k) packed once for several products with it (a convolution's weight).
struct PackedA {
  PackedA(int64_t m, int64_t k, In a);
  int64_t m, k;
  Tensor holder;
  const uint32_t* words = nullptr;
};
void gemm(const PackedA& a, int64_t n, float alpha, In b, float beta, Out<uint16_t> c, const float* row_bias = nullptr);
void gemm(const PackedA& a, int64_t n, float alpha, In b, float beta, Out<float> c, const float* row_bias = nullptr);

namespace detail {

// The micro-kernel's tile: kMR rows of A by kNR columns of B; operands are packed as uint32 pairs
// of bfloat16 (k even, k odd) with zeros past the edges.
constexpr int64_t kMR = 12, kNR = 32;

// A's rows [i0, i0 + kMR) over pairs [p0, p0 + np) into dst (np x kMR pairs).
void pack_a(In a, int64_t m, int64_t k, int64_t i0, int64_t p0, int64_t np, uint32_t* dst);
// B's columns [j0, j0 + kNR) over pairs [p0, p0 + np) into dst (np x kNR pairs).
void pack_b(In b, int64_t k, int64_t n, int64_t j0, int64_t p0, int64_t np, uint32_t* dst);
// tile (kMR x kNR floats) = (accumulate ? tile : 0) + the product of np packed pairs.
void kernel(int64_t np, const uint32_t* a, const uint32_t* b, float* tile, bool accumulate);
// C's rows [i0, i0 + rows) and columns [j0, j0 + cols) = alpha * tile + beta * C + row_bias.
void store(const float* tile, int64_t rows, int64_t cols, float alpha, float beta, Out<uint16_t> c, int64_t i0,
           int64_t j0, const float* row_bias);
void store(const float* tile, int64_t rows, int64_t cols, float alpha, float beta, Out<float> c, int64_t i0, int64_t j0,
           const float* row_bias);

}  // namespace detail

}  // namespace ember::bf16gemm
