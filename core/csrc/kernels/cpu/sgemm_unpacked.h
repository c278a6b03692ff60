// Float32 matrix products read where their operands lie: no packing, no threads, no size checks
// beyond the caller's. Small products (a few dozen rows and columns, as in Winograd's 36 per-point
// products per tile block) spend more in OpenBLAS's packing and dispatch than in arithmetic; this
// runs them on a 6x16 AVX2/FMA register kernel straight from row-major storage. Column panels of
// B go outside, rows of A inside, so A is read once per 16 columns: it should fit in L2. Needs
// AVX2 and FMA (the caller checks cpu_has_avx2).
#pragma once
#include <cstdint>

namespace ember::sgemm_unpacked {

// C (m x n, row stride ldc) = A (m x k, row stride lda) @ B (k x n, row stride ldb), or += with
// `accumulate`. Any m, n, k >= 0; C's rows are written only within its n columns.
void product(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
             int64_t ldc, bool accumulate);

// The same with AVX-512F (the caller checks cpu_has_avx512): blocks of up to 12x32 (sgemm_unpacked512.cpp).
void product512(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                int64_t ldc, bool accumulate);

// bt (n x m, row stride ldbt) = the transpose of b (m x n, row stride ldb).
void transpose(int64_t m, int64_t n, const float* b, int64_t ldb, float* bt, int64_t ldbt);

}  // namespace ember::sgemm_unpacked
