// Run-time CPU feature checks for picking SIMD code paths (cpu_features.cpp).
#pragma once

namespace ember {

bool cpu_has_avx2();    // AVX2 and FMA
bool cpu_has_avx512();  // AVX-512F

}  // namespace ember
