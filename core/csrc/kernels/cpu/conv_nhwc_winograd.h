// Winograd's F(4x4, 3x3) for channels_last (NHWC) float32 convolutions with a 3x3 kernel, stride 1,
// no dilation and one group: with channels innermost, a 6x6 input tile's transform B^T d B runs on 8
// channels per AVX lane group straight from memory, the 36 per-point channel sums are products
// (tiles x C) @ U[xi] (C x K) on sgemm_unpacked's register kernel, and A^T m A writes 4x4 output
// positions, every channel at once. A quarter of direct convolution's multiplications.
#pragma once
#include <cstdint>

namespace ember::conv::nhwc::winograd {

// Whether this path serves a pass: a 3x3, stride-1, undilated, single-group float32 convolution on an
// AVX2 CPU, channel counts multiples of 8, and enough output for the kernel's transform to pay.
bool applies(int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w, int64_t dil_h, int64_t dil_w, int64_t groups,
             int64_t cin, int64_t cout, int64_t oh, int64_t ow);

// The padded input's rows and columns this path reads: 4 per tile plus 2.
inline int64_t padded_extent(int64_t out) { return (out + 3) / 4 * 4 + 2; }

// y (n, oh, ow, cout) = bias (or 0) + the convolution of xp (n, padded_extent(oh), padded_extent(ow),
// cin) with taps (tap kh*3+kw, channel c, output o at (tap * cin + c) * cout + o). Returns false,
// writing nothing, when xp or the taps hold a NaN, an infinity or a magnitude of 2^40 or more (a
// transform would spread it over its whole tile): the caller then takes the direct path.
bool forward(const float* xp, int64_t n, int64_t cin, int64_t oh, int64_t ow, int64_t cout, const float* taps,
             const float* bias, float* y);

// dtaps (tap, c, o as forward's taps) = the weight gradient given xp (as forward reads it) and dyp, the
// output gradient (n, oh, ow, cout) padded with zeros to (n, 4 ceil(oh/4), 4 ceil(ow/4), cout). Returns
// false, writing nothing, on the values forward refuses.
bool weight_grad(const float* xp, const float* dyp, int64_t n, int64_t cin, int64_t oh, int64_t ow, int64_t cout,
                 float* dtaps);

}  // namespace ember::conv::nhwc::winograd
