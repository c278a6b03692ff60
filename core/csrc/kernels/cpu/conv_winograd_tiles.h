// The pieces of the F(4x4, 3x3) Winograd convolution (conv_winograd.h) that its two schedules share:
// the tile layout, the transforms of input tiles, output tiles, kernels and their adjoints (8 tiles
// or 8 channels at a time on AVX2), and the finiteness check. Internal to conv_winograd*.cpp.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "kernels/cpu/conv_winograd.h"

#define WINO_AVX2 __attribute__((target("avx2,fma")))

namespace ember::conv::winograd {

constexpr int64_t kPoints = 36;  // the 6x6 transformed domain; point xi = 6 r + s
constexpr int64_t kLanes = 8;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Tiles of the output, and how a schedule blocks them.
struct Layout {
  int64_t th, tw, tiles;  // tile rows and columns per image; tiles in all
  int64_t tb;             // tiles per block (a multiple of 8)
};

Layout make_layout(const Problem& p, bool weight_grad);

// The distance (in floats) between consecutive points' slices of a block's V or M (channels x tb
// each): an odd number of 64-byte lines (see conv_winograd_tiles.cpp).
int64_t point_stride(int64_t channels, int64_t tb);

// Whether the n values are all below 2^40 in magnitude (so neither NaN nor infinite).
// E, here and below: the element type read or written, float or bfloat16's bits (conv_winograd_elem.h).
template <class E>
WINO_AVX2 bool all_moderate(const E* x, int64_t n);
template <class E>
bool all_moderate_parallel(const E* x, int64_t n);

// xp (n x c planes of hp x wp) = x with ph / pw zeros before and zeros after up to the plane's end.
// Returns whether x is all moderate.
template <class E>
bool pad_planes(const E* x, int64_t planes_per_image, int64_t x_stride, int64_t n, int64_t h, int64_t w, int64_t ph,
                int64_t pw, int64_t hp, int64_t wp, float* xp);

// Offsets (in floats) of the top-left corners of tiles t0 .. t0+count-1 in planes of image_floats
// per image and row_floats per row, padded to a multiple of 8 by repeating the last tile.
void tile_offsets(const Layout& l, int64_t t0, int64_t count, int64_t image_floats, int64_t row_floats, int32_t* off);

// A block's input tiles, read from x itself (no padded copy): per tile the offset of its 6x6
// patch's top-left corner (padding included, so it may lie outside the plane), which of the patch's
// rows lie inside the plane, and a lane mask of its columns inside (never the last 2 of the 8-wide
// loads, which belong to the next tile). Loads outside come back as zeros without touching memory.
// Groups of 8 tiles wholly inside x (every patch row, and all 8 floats of each load, which may
// reach 2 past the row into the next: harmless, except past x's end) load without masks.
struct InputTiles {
  std::vector<int32_t> off;
  std::vector<uint8_t> rows;
  std::vector<std::array<int32_t, kLanes>> cols;
  std::vector<bool> inside;  // per group of 8
};

InputTiles input_tiles(const Problem& p, const Layout& l, int64_t t0, int64_t count);

// U[xi] for every point, over kernel rows ko in [k_lo, k_hi) and input channels ci in [c_lo, c_hi),
// into u (point xi at u + xi * u_point, row ko - k_lo u_cols floats apart, column ci - c_lo). With
// flipped_transposed, w is (c, k, 3, 3) and used rotated by 180 degrees.
template <class E>
WINO_AVX2 void transform_kernel(const E* w, bool flipped_transposed, int64_t k, int64_t c, int64_t k_lo, int64_t k_hi,
                                int64_t c_lo, int64_t c_hi, float* u, int64_t u_point, int64_t u_cols);

// V[xi] (c x tb, this block's columns) of the tiles whose offsets start at `off` (within `tiles`),
// read from x. Returns whether all the values read are moderate.
template <class E>
WINO_AVX2 bool transform_input(const E* x, const Problem& p, const Layout& l, const InputTiles& tiles, int64_t ntiles,
                               const int32_t* off, float* v);

// y's tiles t0 .. t0+ntiles-1 of `channels` output planes (plus bias, if given) from M[xi]
// (channels x tb, points ps floats apart).
template <class E>
WINO_AVX2 void transform_output(const float* m, int64_t ps, int64_t channels, const E* bias, const Problem& p,
                                const Layout& l, int64_t t0, int64_t ntiles, E* y);

// dM[xi] (channels x tb) from the output gradient's planes dyp (4 th x 4 tw each).
template <class E>
WINO_AVX2 void transform_output_grad(const E* dyp, const Layout& l, int64_t channels, int64_t ntiles,
                                     const int32_t* off, float* dm);

// dw (k, c, 3, 3) over rows ko in [k_lo, k_hi) and input channels ci in [c_lo, c_hi) from dU (point
// xi at du + xi * du_point, row ko - k_lo du_cols floats apart, column ci - c_lo).
template <class E>
WINO_AVX2 void transform_kernel_grad(const float* du, int64_t du_point, int64_t du_cols, int64_t c, int64_t k_lo,
                                     int64_t k_hi, int64_t c_lo, int64_t c_hi, E* dw);

// C (m x n) = A (m x k) @ B (k x n), or += with accumulate, all row-major: the per-point products of
// both schedules, on sgemm_unpacked's AVX-512 register kernel where the CPU has it (12 x 32 blocks,
// a quarter fewer cycles than the AVX2 6 x 16 one here, the same sums in the same order), else AVX2.
void tile_product(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                  int64_t ldc, bool accumulate);

// The kernel-major schedule (conv_winograd_kernel_major.cpp), for few tiles next to many
// channels: whether it serves problem p, and its forward and weight gradient (false on input
// values that are not moderate). D: the element type of the (padded) output gradient dyp.
bool kernel_major(const Problem& p, const Layout& l);
template <class E>
bool forward_kernel_major(const Problem& p, const Layout& l, const E* x, const E* w, bool flipped_transposed,
                          const E* bias, E* y);
template <class E, class D>
bool weight_grad_kernel_major(const Problem& p, const Layout& l, const E* x, const D* dyp, E* dw);

}  // namespace ember::conv::winograd
