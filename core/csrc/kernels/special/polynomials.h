// The classical orthogonal polynomials at (x, n), n taken as an integer (truncated; NaN n gives NaN,
// n < 0 gives 0, as PyTorch): Chebyshev T, U, V, W (and shifted: of 2x - 1), Hermite H and He,
// Laguerre L, Legendre P. By their three-term recurrences, in double; Chebyshev of |x| < 1 and
// large n by the trigonometric forms (T = cos(n t), U = sin((n+1)t)/sin t, V = cos((n+1/2)t)/cos(t/2),
// W = sin((n+1/2)t)/sin(t/2), x = cos t), which do not accumulate rounding over n steps.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

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
      case 0: return x > 0 ? 1.0 : odd;
      case 1: return x > 0 ? dn + 1.0 : odd * (dn + 1.0);
      case 2: return x > 0 ? 1.0 : odd * (2.0 * dn + 1.0);
      default: return x > 0 ? 2.0 * dn + 1.0 : odd;
    }
  }
  if (n > 6 && std::fabs(x) < 1.0) {
    const double t = std::acos(x), dn = double(n);
    switch (kind) {
      case 0: return std::cos(dn * t);
      case 1: return std::sin((dn + 1.0) * t) / std::sin(t);
      case 2: return std::cos((dn + 0.5) * t) / std::cos(0.5 * t);
      default: return std::sin((dn + 0.5) * t) / std::sin(0.5 * t);
    }
  }
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
  return poly_detail::recur(x, x, n, [](int64_t k, double y, double c, double p) {
    const double dk = double(k);
    return ((2.0 * dk + 1.0) * y * c - dk * p) / (dk + 1.0);
  });
}

}  // namespace ember::fn
