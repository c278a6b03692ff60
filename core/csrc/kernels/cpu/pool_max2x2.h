// max_pool2d's most common form (2x2 windows, stride 2, no padding or dilation, float32) on AVX2:
// 8 outputs per step from two rows of 16 inputs, split into even and odd columns.
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

}  // namespace ember::pool
