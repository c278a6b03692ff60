// Winograd's minimal filtering F(4x4, 3x3) for float32 2-D convolutions with a 3x3 kernel, stride 1
// and no dilation (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", 2016): each
// 6x6 input tile and each kernel go to a 36-point domain, where the channel sums are 36 matrix
// products with a quarter of direct convolution's multiplications; the products run on
// sgemm_unpacked's register kernel, straight from the transforms' buffers.
// Forward, the input gradient (a convolution with the flipped, transposed kernel) and the weight
// gradient (the adjoint of the same identity) all use it. Needs AVX2 and FMA.
#pragma once
#include <cstdint>

#include "kernels/cpu/conv_cols.h"

namespace ember::conv::winograd {

// One group of a batched 2-D convolution: x holds n images of c channels (h x w planes, images
// x_stride floats apart) and y n images of k channels (oh x ow planes, y_stride floats apart).
struct Problem {
  int64_t n = 0, c = 0, h = 0, w = 0, k = 0, ph = 0, pw = 0, x_stride = 0, y_stride = 0;
  int64_t oh() const { return h + 2 * ph - 2; }
  int64_t ow() const { return w + 2 * pw - 2; }
};

// Whether a convolution of geometry g is a 2-D one (or a 3-D one of depth 1 with no depth padding)
// with a 3x3 kernel, stride 1, no dilation and padding of at most 2 (in either direction: the transposed one pads by 2
// minus that).
bool geometry_fits(const Geometry& g);

// Whether this path serves problem p on this CPU: enough channels on both sides and a large enough
// output for the products to outweigh the transforms, and offsets that fit in 32 bits.
bool applies(const Problem& p);

// Whether the weight gradient of problem p takes this path too: it also needs each thread's share of
// tiles to be large next to its own partial sum of the transformed kernel gradient.
bool applies_to_weight_grad(const Problem& p);

// y = the convolution of x with w, plus bias (k values) unless it is null. w is (k, c, 3, 3); with
// `flipped_transposed` it is (c, k, 3, 3) and used rotated by 180 degrees, which makes this the
// transposed convolution (the input gradient) of the stride-1 convolution with kernel w.
// Returns false when x or w holds a NaN, an infinity or a magnitude of 2^40 or more: a transform
// would spread a non-finite value over its whole tile (direct convolution keeps it to the windows
// that see it), and could overflow on huge finite ones. x is checked as its tiles are read, so y
// may then hold some finished blocks: the caller must write all of y again (conv.cpp redoes the
// whole convolution on the direct path).
bool forward(const float* x, const float* w, const float* bias, bool flipped_transposed, float* y, const Problem& p);
// The same on bfloat16 operands (their bits): computed in float32 from the bfloat16 values, each
// result rounded once (as the float32 convolution of the widened operands, then rounded).
bool forward(const uint16_t* x, const uint16_t* w, const uint16_t* bias, bool flipped_transposed, uint16_t* y,
             const Problem& p);

// dw (k, c, 3, 3) = the gradient of the convolution's weight given dy (the output's gradient, laid
// out as y) and x. Returns false, having written nothing, on the values forward refuses.
bool weight_grad(const float* dy, const float* x, float* dw, const Problem& p);
bool weight_grad(const uint16_t* dy, const uint16_t* x, uint16_t* dw, const Problem& p);

}  // namespace ember::conv::winograd
