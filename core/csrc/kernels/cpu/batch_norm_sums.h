// The per-plane loops of batch norm for float32 on AVX2: sums accumulated in double in several
// independent vector accumulators (a single scalar double sum is bound by the add latency, about
// 4 cycles an element), and the input gradient's elementwise pass in float.
#pragma once
#include <cstdint>

namespace ember::bn {

// sum(p)
double sum(const float* p, int64_t n);
// sum((p - m)^2)
double sum_sq_dev(const float* p, int64_t n, double m);
// sq += sum(q), sqx += sum(q (p - m))
void sum_grad(const float* q, const float* p, int64_t n, double m, double& sq, double& sqx);
// o = k (q - mg) - (p - m) kx
void input_grad(const float* q, const float* p, int64_t n, float k, float mg, float m, float kx, float* o);

}  // namespace ember::bn
