// Special functions std:: lacks: erfinv, digamma and polygamma, computed in double (float inputs round the
// double result) so every dtype gets a correctly rounded-or-close answer.
#pragma once
#include <cmath>
#include <limits>

#include "kernels/special/zeta.h"

namespace ember::fn {

namespace detail {

// Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011): a single-precision
// polynomial in w = -log(1 - x^2), good to ~1e-7 relative, refined below by Newton steps.
inline double erfinv_start(double x) {
  double w = -std::log((1.0 - x) * (1.0 + x));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * x;
}

}  // namespace detail

// Inverse error function: erfinv(+-1) = +-inf, NaN outside [-1, 1].
inline double erfinv(double x) {
  const double a = std::fabs(x);
  if (!(a < 1.0)) {
    if (a == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), x);
    return std::numeric_limits<double>::quiet_NaN();
  }
  double y = detail::erfinv_start(a);
  constexpr double two_over_sqrt_pi = 1.12837916709551257389615890312154517;
  if (a <= 0.5) {
    // Newton on erf(y) = a; the start is good to ~1e-7, so two steps reach double precision.
    for (int i = 0; i < 2; i++) y -= (std::erf(y) - a) / (two_over_sqrt_pi * std::exp(-y * y));
  } else {
    // Newton on log(erfc(y)) = log(1 - a): 1 - a is exact here and erfc keeps its relative accuracy
    // (erf(y) - a would cancel), and the log makes the tail nearly quadratic, so Newton converges
    // fast even where the start is rough (a within ~1e-8 of 1).
    const double t = 1.0 - a;
    for (int i = 0; i < 6; i++) {
      const double e = std::erfc(y);
      const double step = std::log(e / t) * e / (two_over_sqrt_pi * std::exp(-y * y));
      y += step;
      if (std::fabs(step) <= 1e-15 * y) break;
    }
  }
  return std::copysign(y, x);
}

// Digamma (psi): -inf at +0 and +inf at -0 (as PyTorch), NaN at negative integers. Negative
// arguments reflect (psi(x) = psi(1 - x) - pi / tan(pi x)); small positive ones climb with
// psi(x) = psi(x + 1) - 1/x to x >= 10, where the asymptotic series is exact to double precision.
inline double digamma(double x) {
  constexpr double pi = 3.14159265358979323846264338327950288;
  if (x == 0.0) return std::copysign(std::numeric_limits<double>::infinity(), -x);
  if (std::isnan(x)) return x;
  if (x < 0.0) {
    if (x == std::trunc(x)) return std::numeric_limits<double>::quiet_NaN();
    // tan(pi x) has period 1: reduce to [-1/2, 1/2] first (exactly) so pi * r keeps its precision.
    const double r = x - std::nearbyint(x);
    return digamma(1.0 - x) - pi / std::tan(pi * r);
  }
  double acc = 0.0;
  while (x < 10.0) {
    acc -= 1.0 / x;
    x += 1.0;
  }
  if (std::isinf(x)) return x;
  // Bernoulli terms B_2k / (2k x^2k), k = 1..7.
  const double z = 1.0 / (x * x);
  const double series =
      z *
      (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return acc + std::log(x) - 0.5 / x - series;
}

// The n-th derivative of digamma: psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1.
inline double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  const double sign = (n % 2 == 1) ? 1.0 : -1.0;
  return sign * std::exp(std::lgamma(double(n) + 1.0)) * zeta(double(n) + 1.0, x);
}

template <class T>
inline T erfinv(T a) {
  return T(erfinv(double(a)));
}
template <class T>
inline T digamma(T a) {
  return T(digamma(double(a)));
}
template <class T>
inline T polygamma(int64_t n, T a) {
  return T(polygamma(n, double(a)));
}

}  // namespace ember::fn
