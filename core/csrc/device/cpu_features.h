// Run-time CPU feature checks for picking SIMD code paths (cpu_features.cpp).
#pragma once

namespace ember {

bool cpu_has_avx2();         // AVX2 and FMA
bool cpu_has_avx512();       // AVX-512F
bool cpu_has_avx512_bf16();  // AVX-512F, BW, VL and BF16 (vdpbf16ps)

}  // namespace ember
