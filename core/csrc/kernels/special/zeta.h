// The Hurwitz zeta function zeta(s, q) = sum_{k>=0} (q + k)^-s, in double.
#pragma once
#include <cmath>
#include <limits>

namespace ember::fn {

// Domain as in Cephes/SciPy: inf at s = 1 and at q a non-positive integer, NaN for s < 1, NaN for
// q < 0 with s not an integer ((q + k)^-s is not real). The first terms are summed directly until
// q + k passes 9 + s and |q| (or the terms stop mattering, for large s), then Euler-Maclaurin:
// the integral a^(1-s)/(s-1), half the next term, and the Bernoulli corrections
// B_2j/(2j)! s(s+1)...(s+2j-2) a^-(s+2j-1), j = 1..8, which are below 1e-17 there.
inline double zeta(double s, double q);

// q < 0, not an integer, s an integer (the caller's domain): the m = ceil(-q) negative terms are
// -(r + j), j < m, with r = -(q + m - 1) in (0, 1), so zeta(s, q) = (-1)^s (zeta(s, r) - zeta(s, r + m))
// + zeta(s, q + m): positive arguments only, instead of |q| terms one by one.
inline double zeta_negative_q(double s, double q) {
  const double m = std::ceil(-q), r = -(q + m - 1.0);
  const double sign = std::fmod(s, 2.0) == 0.0 ? 1.0 : -1.0;
  return sign * (zeta(s, r) - zeta(s, r + m)) + zeta(s, q + m);
}

inline double zeta(double s, double q) {
  constexpr double b2j_over_fact[] = {1.0 / 12,
                                      -1.0 / 720,
                                      1.0 / 30240,
                                      -1.0 / 1209600,
                                      1.0 / 47900160,
                                      -691.0 / 1307674368000.0,
                                      1.0 / 74724249600.0,
                                      -3617.0 / 10670622842880000.0};
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (std::isnan(s) || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  if (s == 1.0) return inf;
  if (s < 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0.0) {
    if (q == std::floor(q)) return inf;
    if (s != std::floor(s)) return std::numeric_limits<double>::quiet_NaN();
  }
  if (std::isinf(q)) return 0.0;
  if (std::isinf(s)) return q < 1.0 ? inf : (q == 1.0 ? 1.0 : 0.0);
  if (q < -64.0) return zeta_negative_q(s, q);
  double sum = 0.0, a = q;
  while (a < 9.0 + s || a < -q + 9.0) {
    const double t = std::pow(a, -s);
    sum += t;
    a += 1.0;
    // Large s: the rest is below t * a / (s - 1), negligible once t is (terms decrease once a > 0).
    // An infinite or NaN sum stays so: s near 2**31 or 2**62 (polygamma of huge n) leaves at once.
    if (a > 1.0 && (std::fabs(t) <= 1e-18 * std::fabs(sum) || !std::isfinite(sum))) return sum;
  }
  const double a_s = std::pow(a, -s);
  sum += a * a_s / (s - 1.0) + 0.5 * a_s;
  double rising = s, power = a_s / a;  // s(s+1)...(s+2j-2), a^-(s+2j-1)
  for (int j = 0; j < 8; j++) {
    const double term = b2j_over_fact[j] * rising * power;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    rising *= (s + 2.0 * j + 1.0) * (s + 2.0 * j + 2.0);
    power /= a * a;
  }
  return sum;
}

}  // namespace ember::fn
