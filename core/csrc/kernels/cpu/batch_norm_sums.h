// The per-plane loops of batch norm: sums accumulated in double, and the input gradient's
// elementwise pass. float32 on an AVX2 CPU takes batch_norm_sums.cpp's vector bodies (a scalar
// double sum is bound by the add latency, about 4 cycles an element, and they keep several
// independent accumulators); other types and CPUs the scalar loops here.
#pragma once
#include <cstdint>
#include <type_traits>

#include "device/cpu_features.h"

namespace ember::bn {

double sum_avx2(const float* p, int64_t n);
double sum_sq_dev_avx2(const float* p, int64_t n, double m);
void sum_grad_avx2(const float* q, const float* p, int64_t n, double m, double& sq, double& sqx);
void input_grad_avx2(const float* q, const float* p, int64_t n, float k, float mg, float m, float kx, float* o);

template <class T>
constexpr bool kVector = std::is_same_v<T, float>;

// sum(p)
template <class T>
double sum(const T* p, int64_t n) {
  if constexpr (kVector<T>)
    if (cpu_has_avx2()) return sum_avx2(p, n);
  double s = 0;
  for (int64_t j = 0; j < n; j++) s += p[j];
  return s;
}

// sum((p - m)^2)
template <class T>
double sum_sq_dev(const T* p, int64_t n, double m) {
  if constexpr (kVector<T>)
    if (cpu_has_avx2()) return sum_sq_dev_avx2(p, n, m);
  double s = 0;
  for (int64_t j = 0; j < n; j++) s += (double(p[j]) - m) * (double(p[j]) - m);
  return s;
}

// sq += sum(q), sqx += sum(q (p - m))
template <class T>
void sum_grad(const T* q, const T* p, int64_t n, double m, double& sq, double& sqx) {
  if constexpr (kVector<T>)
    if (cpu_has_avx2()) return sum_grad_avx2(q, p, n, m, sq, sqx);
  for (int64_t j = 0; j < n; j++) {
    sq += q[j];
    sqx += double(q[j]) * (double(p[j]) - m);
  }
}

// o = k (q - mg) - (p - m) kx
template <class T>
void input_grad(const T* q, const T* p, int64_t n, double k, double mg, double m, double kx, T* o) {
  if constexpr (kVector<T>)
    if (cpu_has_avx2()) return input_grad_avx2(q, p, n, float(k), float(mg), float(m), float(kx), o);
  for (int64_t j = 0; j < n; j++) o[j] = T(k * (double(q[j]) - mg) - (double(p[j]) - m) * kx);
}

}  // namespace ember::bn
