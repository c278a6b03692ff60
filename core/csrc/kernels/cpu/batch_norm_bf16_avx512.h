// batch norm's per-plane loops for bfloat16 read and written in place on AVX-512F (autocast's batch
// norms): each 16 values widened in registers (exactly: a bfloat16 is a float's upper half) instead of
// a pass widening whole planes into a float32 buffer and another rounding them back. Sums in double
// as batch_norm_sums.h; results rounded to nearest even once, as BFloat16::from_float (NaN quieted).
#pragma once
#include <cstdint>

namespace ember::bn::bf16 {

// sum(p)
double sum(const uint16_t* p, int64_t n);
// sum((p - m)^2)
double sum_sq_dev(const uint16_t* p, int64_t n, double m);
// y = round(p * scale + shift)
void affine(const uint16_t* p, int64_t n, float scale, float shift, uint16_t* y);
// sq += sum(q), sqx += sum(q (p - m))
void sum_grad(const uint16_t* q, const uint16_t* p, int64_t n, double m, double& sq, double& sqx);
// o = round(k (q - mg) - (p - m) kx), in float as batch_norm_sums.h's input_grad
void input_grad(const uint16_t* q, const uint16_t* p, int64_t n, float k, float mg, float m, float kx, uint16_t* o);

}  // namespace ember::bn::bf16
