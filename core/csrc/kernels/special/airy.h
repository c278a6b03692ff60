// The Airy function Ai, in double. By region:
//   x >= 1: Ai(x) = sqrt(x/3)/pi K_{1/3}(zeta), zeta = 2/3 x^{3/2}, with K by the trapezoidal
//           integral of bessel.h (positive terms: relative accuracy down to the underflow).
//   -9 <= x < 1: the Taylor series of Ai'' = x Ai stepped from Ai(0), Ai'(0) in steps of at most 1/2
//           (coefficients c_{n+2} = (x0 c_n + c_{n-1}) / ((n+1)(n+2))); in the oscillating region
//           no solution dominates, so the steps do not amplify rounding.
//   x < -9: the asymptotic expansion Ai(-z) = z^{-1/4}/sqrt(pi) (sin(zeta + pi/4) P - cos(zeta + pi/4) Q),
//           P = sum (-1)^k u_2k / zeta^2k, Q = sum (-1)^k u_2k+1 / zeta^(2k+1),
//           u_k = u_{k-1} (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k) (DLMF 9.7.9); zeta >= 18 there.
#pragma once
#include <cmath>
#include <limits>

#include "kernels/special/bessel.h"

namespace ember::fn {

namespace airy_detail {

constexpr double ai0 = 0.355028053887817239260063186004;
constexpr double ai1 = -0.258819403792806798405183560189;  // Ai'(0)

// (y, y') of Ai at x by Taylor steps from 0.
inline double taylor(double x) {
  double x0 = 0.0, y = ai0, dy = ai1;
  const int steps = int(std::ceil(std::fabs(x) / 0.5));
  const double h = steps ? x / steps : 0.0;
  for (int s = 0; s < steps; s++) {
    // c_0 = y, c_1 = dy, c_2 = x0 y / 2, c_{n+2} = (x0 c_n + c_{n-1}) / ((n+1)(n+2)).
    double cm1 = y, c0 = dy, c1 = x0 * y / 2.0;  // c_{n-1}, c_n, c_{n+1} with n = 1
    double hp = h * h;                           // h^(n+1)
    double val = y + dy * h + c1 * hp;
    double der = dy + 2.0 * c1 * h;
    int small = 0;
    for (int n = 1; n < 60; n++) {
      const double c2 = (x0 * c0 + cm1) / ((n + 1.0) * (n + 2.0));  // c_{n+2}
      const double term = c2 * hp * h;                              // c_{n+2} h^(n+2)
      val += term;
      der += (n + 2.0) * c2 * hp;
      cm1 = c0;
      c0 = c1;
      c1 = c2;
      hp *= h;
      // Every third coefficient can vanish (at x0 = 0): stop after three small terms in a row.
      small = std::fabs(term) < 1e-18 * (std::fabs(val) + 1e-300) ? small + 1 : 0;
      if (small == 3) break;
    }
    y = val;
    dy = der;
    x0 += h;
  }
  return y;
}

inline double asymptotic_negative(double z) {
  constexpr double pi = 3.14159265358979323846264338327950288;
  const double zeta = 2.0 / 3.0 * z * std::sqrt(z);
  double p = 1.0, q = 0.0, u = 1.0, term = 1.0;
  for (int k = 1; k < 60; k++) {
    u *= (6.0 * k - 5.0) * (6.0 * k - 3.0) * (6.0 * k - 1.0) / ((2.0 * k - 1.0) * 216.0 * k);
    const double next = u / std::pow(zeta, k);
    if (next >= term && k > 2) break;
    term = next;
    const double signed_term = ((k / 2) % 2 == 0) ? term : -term;
    (k % 2 == 0 ? p : q) += signed_term;
    if (term < 1e-18) break;
  }
  // sin(zeta + pi/4) = (sin + cos)/sqrt 2, cos(zeta + pi/4) = (cos - sin)/sqrt 2.
  const double s = std::sin(zeta), c = std::cos(zeta);
  constexpr double r = 0.70710678118654752440;
  return (p * r * (s + c) - q * r * (c - s)) / (std::sqrt(pi) * std::sqrt(std::sqrt(z)));
}

}  // namespace airy_detail

inline double airy_ai(double x) {
  constexpr double pi = 3.14159265358979323846264338327950288;
  if (std::isnan(x)) return x;
  if (x >= 1.0) {
    if (x > 105.0) return 0.0;  // below the smallest subnormal
    const double zeta = 2.0 / 3.0 * x * std::sqrt(x);
    return std::sqrt(x / 3.0) / pi * bessel_detail::k_scaled_integral(1.0 / 3.0, zeta) * std::exp(-zeta);
  }
  if (x >= -9.0) return airy_detail::taylor(x);
  if (std::isinf(x)) return 0.0;
  return airy_detail::asymptotic_negative(-x);
}

}  // namespace ember::fn
