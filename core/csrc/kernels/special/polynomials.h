// The classical orthogonal polynomials at (x, n), n taken as an integer (truncated; NaN n gives NaN,
// n < 0 gives 0, as PyTorch): Chebyshev T, U, V, W (and shifted: of 2x - 1), Hermite H and He,
// Laguerre L, Legendre P. By their three-term recurrences, in double; Chebyshev of |x| < 1 and
// large n by the trigonometric forms (T = cos(n t), U = sin((n+1)t)/sin t, V = cos((n+1/2)t)/cos(t/2),
// W = sin((n+1/2)t)/sin(t/2), x = cos t), which do not accumulate rounding over n steps.
// Degrees above kMaxRecurrence (where n steps would take seconds per element, or forever near
// 2**63) use closed forms (Chebyshev of |x| > 1 by cosh/sinh) or the uniform Bessel asymptotics
// of Szego and Hilb (Legendre, Laguerre), good to O(n**-3/2) relative there.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/special/bessel.h"

namespace ember::fn {

namespace poly_detail {

// n as an integer count, or -1 for NaN (the caller returns NaN).
inline bool to_degree(double n, int64_t& out) {
  if (std::isnan(n)) return false;
  const double t = std::trunc(n);  // toward zero, as PyTorch's cast: -0.5 is degree 0
  out = t >= 9.2e18 ? int64_t(9.2e18) : (t < 0 ? -1 : int64_t(t));
  return true;
}

// p_{k+1} = (alpha_k x + beta_k) p_k - gamma_k p_{k-1}, from p0 = 1 and p1; stops early once the
// value is not finite (huge n).
template <class Step>
inline double recur(double p1, double x, int64_t n, Step step) {
  if (n == 0) return 1.0;
  double prev = 1.0, cur = p1;
  for (int64_t k = 1; k < n; k++) {
    const double next = step(k, x, cur, prev);
    prev = cur;
    cur = next;
    if (!std::isfinite(cur)) break;
  }
  return cur;
}

inline double nan() { return std::numeric_limits<double>::quiet_NaN(); }

// Above this degree the recurrences give way to closed forms or asymptotics (about 1 ms per element).
constexpr int64_t kMaxRecurrence = int64_t(1) << 20;

// I0(z) without overflowing early: exp(z) * I0e(z), inf past double's range.
inline double i0_big(double z) {
  return z > 700.0 ? std::exp(z - 700.0) * bessel_i0e(z) * std::exp(700.0) : bessel_i0(z);
}

// Chebyshev of |x| > 1 (x = +-cosh t): T = cosh(n t), U = sinh((n+1)t)/sinh t,
// V = cosh((n+1/2)t)/cosh(t/2), W = sinh((n+1/2)t)/sinh(t/2); x < 0 gives (-1)^n and swaps V and W.
inline double chebyshev_outside(int kind, double x, int64_t n) {
  const double t = std::acosh(std::fabs(x)), dn = double(n);
  const double sign = (x < 0 && n % 2) ? -1.0 : 1.0;
  if (x < 0 && kind >= 2) kind = 5 - kind;
  double v;
  switch (kind) {
    case 0:
      v = std::cosh(dn * t);
      break;
    case 1:
      v = std::sinh((dn + 1.0) * t) / std::sinh(t);
      break;
    case 2:
      v = std::cosh((dn + 0.5) * t) / std::cosh(0.5 * t);
      break;
    default:
      v = std::sinh((dn + 0.5) * t) / std::sinh(0.5 * t);
      break;
  }
  return sign * v;
}

}  // namespace poly_detail

// kind: 0 = T, 1 = U, 2 = V, 3 = W.
inline double chebyshev(int kind, double x, double nd) {
  int64_t n;
  if (!poly_detail::to_degree(nd, n)) return poly_detail::nan();
  if (n < 0) return 0.0;
  if (std::isnan(x)) return x;
  const double odd = (n % 2) ? -1.0 : 1.0;
  if (std::fabs(x) == 1.0) {
    const double dn = double(n);
    switch (kind) {
      case 0:
        return x > 0 ? 1.0 : odd;
      case 1:
        return x > 0 ? dn + 1.0 : odd * (dn + 1.0);
      case 2:
        return x > 0 ? 1.0 : odd * (2.0 * dn + 1.0);
      default:
        return x > 0 ? 2.0 * dn + 1.0 : odd;
    }
  }
  if (n > 6 && std::fabs(x) < 1.0) {
    const double t = std::acos(x), dn = double(n);
    switch (kind) {
      case 0:
        return std::cos(dn * t);
      case 1:
        return std::sin((dn + 1.0) * t) / std::sin(t);
      case 2:
        return std::cos((dn + 0.5) * t) / std::cos(0.5 * t);
      default:
        return std::sin((dn + 0.5) * t) / std::sin(0.5 * t);
    }
  }
  if (n > poly_detail::kMaxRecurrence && std::isfinite(x)) return poly_detail::chebyshev_outside(kind, x, n);
  const double p1 = kind == 0 ? x : (kind == 1 ? 2.0 * x : (kind == 2 ? 2.0 * x - 1.0 : 2.0 * x + 1.0));
  return poly_detail::recur(p1, x, n, [](int64_t, double y, double c, double p) { return 2.0 * y * c - p; });
}
inline double shifted_chebyshev(int kind, double x, double n) { return chebyshev(kind, 2.0 * x - 1.0, n); }

// Physicists' Hermite: H_{k+1} = 2x H_k - 2k H_{k-1}.
inline double hermite_h(double x, double nd) {
  int64_t n;
  if (!poly_detail::to_degree(nd, n)) return poly_detail::nan();
  if (n < 0) return 0.0;
  return poly_detail::recur(2.0 * x, x, n,
                            [](int64_t k, double y, double c, double p) { return 2.0 * y * c - 2.0 * double(k) * p; });
}

// Probabilists' Hermite: He_{k+1} = x He_k - k He_{k-1}.
inline double hermite_he(double x, double nd) {
  int64_t n;
  if (!poly_detail::to_degree(nd, n)) return poly_detail::nan();
  if (n < 0) return 0.0;
  return poly_detail::recur(x, x, n, [](int64_t k, double y, double c, double p) { return y * c - double(k) * p; });
}

// Laguerre: (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}.
inline double laguerre_l(double x, double nd) {
  int64_t n;
  if (!poly_detail::to_degree(nd, n)) return poly_detail::nan();
  if (n < 0) return 0.0;
  if (x == 0.0) return 1.0;
  if (n > poly_detail::kMaxRecurrence && std::isfinite(x)) {
    // Hilb's formula, L_n(x) ~ e^(x/2) J0(2 sqrt(nu x)) with nu = n + 1/2 (I0 for x < 0), in the
    // oscillating region; past x = 4 nu the values overflow and the recurrence stops within steps.
    const double nu = double(n) + 0.5;
    if (x < 0.0) return std::exp(0.5 * x) * poly_detail::i0_big(2.0 * std::sqrt(-nu * x));
    if (x < 3.0 * nu) return std::exp(0.5 * x) * bessel_j0(2.0 * std::sqrt(nu * x));
  }
  return poly_detail::recur(1.0 - x, x, n, [](int64_t k, double y, double c, double p) {
    const double dk = double(k);
    return ((2.0 * dk + 1.0 - y) * c - dk * p) / (dk + 1.0);
  });
}

// Legendre: (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}.
inline double legendre_p(double x, double nd) {
  int64_t n;
  if (!poly_detail::to_degree(nd, n)) return poly_detail::nan();
  if (n < 0) return 0.0;
  if (std::fabs(x) == 1.0) return (x > 0 || n % 2 == 0) ? 1.0 : -1.0;
  if (n > poly_detail::kMaxRecurrence && std::isfinite(x)) {
    // Szego's uniform forms with nu = n + 1/2: P_n(cos t) ~ sqrt(t / sin t) J0(nu t) for t <= pi/2,
    // P_n(cosh t) ~ sqrt(t / sinh t) I0(nu t); P_n(-x) = (-1)^n P_n(x).
    const double sign = (x < 0 && n % 2) ? -1.0 : 1.0, a = std::fabs(x), nu = double(n) + 0.5;
    if (a < 1.0) {
      const double t = std::acos(a);
      return sign * (t == 0.0 ? 1.0 : std::sqrt(t / std::sin(t))) * bessel_j0(nu * t);
    }
    const double t = std::acosh(a);
    return sign * std::sqrt(t / std::sinh(t)) * poly_detail::i0_big(nu * t);
  }
  return poly_detail::recur(x, x, n, [](int64_t k, double y, double c, double p) {
    const double dk = double(k);
    return ((2.0 * dk + 1.0) * y * c - dk * p) / (dk + 1.0);
  });
}

}  // namespace ember::fn
