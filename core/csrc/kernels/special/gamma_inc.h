// The regularized incomplete gamma functions P(a, x) (igamma) and Q(a, x) = 1 - P (igammac), in
// double (Numerical Recipes' method): the series P = x^a e^-x / Gamma(a+1) sum_n x^n / ((a+1)...(a+n))
// for x < a + 1, else the continued fraction
// Q = x^a e^-x / Gamma(a) * 1/(x+1-a - 1(1-a)/(x+3-a - 2(2-a)/(x+5-a - ...))) by Lentz's method; the
// other one as the complement. The prefactor is exp(a log x - x - lgamma(a)): relative accuracy
// ~ |a log x| ulp (no uniform asymptotics for very large a).
#pragma once
#include <cmath>
#include <limits>

namespace ember::fn {

namespace gamma_inc_detail {

// P (lower = true) or Q of (a, x) for a > 0, 0 < x < inf.
inline double regularized(double a, double x, bool lower) {
  const double log_pre = a * std::log(x) - x;
  if (x < a + 1.0) {
    double ap = a, term = 1.0 / a, sum = term;
    for (int n = 0; n < 100000; n++) {
      ap += 1.0;
      term *= x / ap;
      sum += term;
      if (std::fabs(term) < std::fabs(sum) * 1e-17) break;
    }
    const double p = sum * std::exp(log_pre - std::lgamma(a));
    return lower ? p : 1.0 - p;
  }
  constexpr double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 100000; i++) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < 1e-17) break;
  }
  const double q = std::exp(log_pre - std::lgamma(a)) * h;
  return lower ? 1.0 - q : q;
}

// The edges as SciPy: NaN for a < 0, x < 0 or NaN; a = 0 gives P = 1 (x > 0); x = 0 gives P = 0
// (a > 0); x = inf gives P = 1; a = inf (x finite) gives P = 0.
inline double edge(double a, double x, bool lower, bool& done) {
  done = true;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(a) || std::isnan(x) || a < 0.0 || x < 0.0) return nan;
  if (a == 0.0) return x > 0.0 ? (lower ? 1.0 : 0.0) : nan;
  if (x == 0.0) return lower ? 0.0 : 1.0;
  if (std::isinf(a)) return std::isinf(x) ? nan : (lower ? 0.0 : 1.0);
  if (std::isinf(x)) return lower ? 1.0 : 0.0;
  done = false;
  return 0.0;
}

}  // namespace gamma_inc_detail

inline double igamma(double a, double x) {
  bool done;
  const double e = gamma_inc_detail::edge(a, x, true, done);
  return done ? e : gamma_inc_detail::regularized(a, x, true);
}

inline double igammac(double a, double x) {
  bool done;
  const double e = gamma_inc_detail::edge(a, x, false, done);
  return done ? e : gamma_inc_detail::regularized(a, x, false);
}

}  // namespace ember::fn
