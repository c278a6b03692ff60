// max_pool2d's two most common forms on float32 and AVX2, 8 outputs per step from rows of 16 inputs
// split into even and odd columns: 2x2 windows with stride 2 (no padding), and ResNet's 3x3 windows
// with stride 2 and padding 1.
#pragma once
#include <cstdint>

namespace ember::pool {

// Whether max2x2 serves planes of h x w inputs and oh x ow outputs: every window whole (no
// ceil_mode overhang), at least 8 outputs per row, and an AVX2 CPU.
bool max2x2_applies(int64_t h, int64_t w, int64_t oh, int64_t ow);

// values and flat input indices (within the plane) of the maxima for `planes` consecutive planes.
// A NaN wins its window, the last one if several, as in PyTorch; among equal values the first does.
void max2x2(const float* x, int64_t planes, int64_t h, int64_t w, int64_t oh, int64_t ow, float* values,
            int64_t* indices);

// Whether max3x3s2 serves planes of h x w inputs and oh x ow outputs: 3x3 windows, stride 2,
// padding 1, no dilation, and no extra ceil_mode row or column; rows wide enough for a vector step.
bool max3x3s2_applies(int64_t h, int64_t w, int64_t oh, int64_t ow);

// max2x2's work for those windows (clipped to the plane at its edges).
void max3x3s2(const float* x, int64_t planes, int64_t h, int64_t w, int64_t oh, int64_t ow, float* values,
              int64_t* indices);

}  // namespace ember::pool
