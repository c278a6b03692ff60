// float32 <-> bfloat16 conversion of contiguous runs on AVX-512F, 16 values a step: widening is
// exact (a bfloat16 is a float's upper half); narrowing rounds to nearest even and quiets a NaN,
// bit for bit as BFloat16::from_float (so the scalar and vector paths agree, denormals included).
#pragma once
#include <cstdint>

namespace ember::bf16cvt {

void widen(const uint16_t* src, int64_t n, float* dst);
void narrow(const float* src, int64_t n, uint16_t* dst);

}  // namespace ember::bf16cvt
