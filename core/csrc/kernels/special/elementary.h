// Small special functions built from elementary ones: sinc, entr, xlogy, xlog1py,
// spherical_bessel_j0 and the multivariate log-gamma. In double; float inputs round the result.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

namespace ember::fn {

// sin(pi x) / (pi x), 1 at 0. sin(pi x) is taken as (-1)^n sin(pi r) with r = x - n exact
// (n the nearest integer), so the zeros at the integers come out as exact zeros and nearby values
// keep their relative accuracy.
inline double sinc(double x) {
  constexpr double pi = 3.14159265358979323846264338327950288;
  if (x == 0.0) return 1.0;
  if (!std::isfinite(x)) return std::isnan(x) ? x : 0.0;
  const double n = std::nearbyint(x);
  const double r = x - n;
  double s = std::sin(pi * r);
  if (std::fmod(n, 2.0) != 0.0) s = -s;
  return s / (pi * x);
}

// -x log x for x > 0, 0 at 0, -inf for x < 0.
inline double entr(double x) {
  if (std::isnan(x)) return x;
  if (x > 0.0) return std::isinf(x) ? -x : -x * std::log(x);
  if (x == 0.0) return 0.0;
  return -std::numeric_limits<double>::infinity();
}

// x log y with 0 log y = 0 (y not NaN).
inline double xlogy(double x, double y) {
  if (std::isnan(y)) return y;
  if (x == 0.0) return 0.0;
  return x * std::log(y);
}

// x log1p(y) with 0 log1p(y) = 0 (y not NaN).
inline double xlog1py(double x, double y) {
  if (std::isnan(y)) return y;
  if (x == 0.0) return 0.0;
  return x * std::log1p(y);
}

// j0(x) = sin(x) / x, 1 at 0, 0 at +-inf.
inline double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0.0;
  if (std::fabs(x) < 1e-4) {
    const double x2 = x * x;
    return 1.0 - x2 / 6.0 * (1.0 - x2 / 20.0);
  }
  return std::sin(x) / x;
}

// log of the multivariate gamma function of dimension p:
// p(p-1)/4 log(pi) + sum_{j=1..p} lgamma(x + (1 - j)/2).
inline double mvlgamma(double x, int64_t p) {
  constexpr double log_pi = 1.14472988584940017414342735135305871;
  double s = 0.25 * double(p) * double(p - 1) * log_pi;
  // p terms; an infinite or NaN sum stays so, which ends the loop early (x = inf with p near 2**32)
  for (int64_t j = 1; j <= p && std::isfinite(s); j++) s += std::lgamma(x + 0.5 * double(1 - j));
  return s;
}

}  // namespace ember::fn
