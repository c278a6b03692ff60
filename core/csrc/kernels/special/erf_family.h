// The error-function family std:: lacks: erfcx (scaled erfc), the normal distribution's ndtr,
// log_ndtr and its inverse ndtri. All in double; float inputs round the double result.
#pragma once
#include <cmath>
#include <limits>

#include "kernels/special_math.h"  // erfinv

namespace ember::fn {

namespace detail {

// exp(x * x) to ~1 ulp: x * x is split exactly into hi + lo (fma), so the rounding of the square
// does not reach the exponent (exp(hi) * exp(lo) with lo tiny).
inline double exp_x2(double x) {
  const double hi = x * x;
  const double lo = std::fma(x, x, -hi);
  return std::exp(hi) * (1.0 + lo);
}

}  // namespace detail

// erfcx(x) = exp(x^2) erfc(x). For 0 <= x < 26 the product with an exact square; beyond, the
// asymptotic series 1/(x sqrt(pi)) * sum (-1)^k (2k-1)!! / (2x^2)^k (ratio below 0.012, 10 terms);
// negative x by erfcx(x) = 2 exp(x^2) - erfcx(-x) (inf below about -26.6).
inline double erfcx(double x) {
  constexpr double inv_sqrt_pi = 0.56418958354775628694807945156077259;
  if (std::isnan(x)) return x;
  if (x < 0.0) {
    if (x < -26.7) return std::numeric_limits<double>::infinity();
    return 2.0 * detail::exp_x2(x) - erfcx(-x);
  }
  if (x < 26.0) return detail::exp_x2(x) * std::erfc(x);
  if (std::isinf(x)) return 0.0;
  const double r = 1.0 / (2.0 * x * x);
  double term = 1.0, sum = 1.0;
  for (int k = 1; k <= 12; k++) {
    term *= -(2.0 * k - 1.0) * r;
    sum += term;
  }
  return inv_sqrt_pi / x * sum;
}

// The standard normal CDF: 0.5 erfc(-x / sqrt(2)). The argument z = -x/sqrt(2) is carried as
// z + dz (sqrt(1/2) in two parts) and erfc corrected to first order, erfc(z + dz) = erfc(z) (1 - dz
// 2/sqrt(pi) / erfcx(z)), so the lower tail keeps its relative accuracy (the rounding of z alone
// would cost ~z^2 ulp).
inline double ndtr(double x) {
  constexpr double s_hi = 0.70710678118654757;      // sqrt(1/2) rounded
  constexpr double s_lo = -4.8336466567264567e-17;  // sqrt(1/2) - s_hi
  constexpr double two_over_sqrt_pi = 1.12837916709551257389615890312154517;
  if (std::isnan(x)) return x;
  const double z = -x * s_hi;
  if (z < 0.7) return 0.5 * std::erfc(z);  // the upper half, and the middle where erfc ~ 1
  const double dz = std::fma(-x, s_hi, -z) - x * s_lo;
  const double e = std::erfc(z);
  if (e == 0.0) return 0.0;
  return 0.5 * e * (1.0 - dz * two_over_sqrt_pi / erfcx(z));
}

// log(ndtr(x)). Below -1: log(erfcx(z) / 2) - z^2 with z = -x/sqrt(2), z^2 = x^2/2 exactly as
// hi + lo; from -1 to 0 the log of ndtr; above 0 log1p(-ndtr(-x)) (ndtr(-x) keeps its relative
// accuracy, so the result does for large x, where it is ~ -ndtr(-x)).
inline double log_ndtr(double x) {
  constexpr double ln2 = 0.69314718055994530941723212145817657;
  if (std::isnan(x)) return x;
  if (x > 0.0) return std::log1p(-ndtr(-x));
  if (x >= -1.0) return std::log(ndtr(x));
  if (x < -1e154) return -std::numeric_limits<double>::infinity();  // x^2 / 2 overflows
  const double hi = x * x;
  const double lo = std::fma(x, x, -hi);
  return -0.5 * hi + (std::log(erfcx(-x * 0.70710678118654752440)) - ln2 - 0.5 * lo);
}

// The inverse of ndtr on [0, 1] (-inf at 0, inf at 1, NaN outside). The middle, |p - 1/2| <= 1/4,
// is sqrt(2) erfinv(2p - 1) (2p - 1 exact there). The tails solve ndtr(x) = q for q = min(p, 1-p)
// (exact) from Abramowitz & Stegun 26.2.23 (error < 4.5e-4) by Halley steps on
// u = (ndtr(x) - q) / phi(x), written as the Mills ratio sqrt(pi/2) erfcx(-x/sqrt 2) times
// -expm1(log q - log_ndtr(x)) so that nothing over- or underflows down to the smallest subnormal.
inline double ndtri(double p) {
  constexpr double sqrt2 = 1.41421356237309504880168872420969808;
  constexpr double sqrt_half_pi = 1.25331413731550025120788264240552263;
  if (std::isnan(p)) return p;
  if (p <= 0.0 || p >= 1.0) {
    if (p == 0.0) return -std::numeric_limits<double>::infinity();
    if (p == 1.0) return std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (p >= 0.25 && p <= 0.75) return sqrt2 * erfinv(2.0 * p - 1.0);
  const bool upper = p > 0.5;
  const double q = upper ? 1.0 - p : p;
  const double t = std::sqrt(-2.0 * std::log(q));
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  const double log_q = std::log(q);
  for (int i = 0; i < 4; i++) {
    const double u = sqrt_half_pi * erfcx(-x * 0.70710678118654752440) * -std::expm1(log_q - log_ndtr(x));
    const double step = u / (1.0 + 0.5 * x * u);
    x -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(x)) break;
  }
  return upper ? -x : x;
}

}  // namespace ember::fn
