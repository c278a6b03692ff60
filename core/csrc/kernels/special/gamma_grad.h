// The reparameterization gradient of a standard Gamma(alpha) sample x, d x / d alpha at fixed CDF
// value: -(dP(alpha, x)/d alpha) / pdf(alpha, x) (implicit reparameterization; P is the regularized
// lower incomplete gamma). dP/d alpha comes exactly from P's own algorithm (the series below
// alpha + 1, Lentz's continued fraction for Q above it) run on dual numbers in alpha.
#pragma once
#include <cmath>
#include <limits>

#include "kernels/special_math.h"

namespace ember::fn {

namespace gamma_grad_detail {

// A value and its derivative in alpha.
struct Dual {
  double v, d;
};
inline Dual operator+(Dual a, Dual b) { return {a.v + b.v, a.d + b.d}; }
inline Dual operator-(Dual a, Dual b) { return {a.v - b.v, a.d - b.d}; }
inline Dual operator*(Dual a, Dual b) { return {a.v * b.v, a.d * b.v + a.v * b.d}; }
inline Dual operator/(Dual a, Dual b) { return {a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)}; }
inline Dual cst(double v) { return {v, 0.0}; }

// (dP/d alpha) / pdf(alpha, x) for alpha > 0, 0 < x < inf. P = pre * S with pre = x^a e^-x / Gamma(a)
// = x * pdf, so the ratio is x (dlog(pre)/da * S + dS/da): no exponential that could underflow.
inline double dP_dalpha_over_pdf(double alpha, double x) {
  const Dual a{alpha, 1.0};
  const double logx = std::log(x);
  const double dlog_pre = logx - digamma(alpha);
  if (x < alpha + 1.0) {
    // P = pre * sum_n x^n / (a (a+1) ... (a+n)).
    Dual ap = a, term = cst(1.0) / a, sum = term;
    for (int n = 0; n < 200000; n++) {
      ap = ap + cst(1.0);
      term = term * cst(x) / ap;
      sum = sum + term;
      if (std::fabs(term.v) < std::fabs(sum.v) * 1e-17 &&
          std::fabs(term.d) <= (std::fabs(sum.d) + std::fabs(sum.v)) * 1e-17)
        break;
    }
    return x * (dlog_pre * sum.v + sum.d);
  }
  // Q = pre * h (Lentz); dP/da = -dQ/da.
  constexpr double tiny = 1e-300;
  Dual b = cst(x + 1.0) - a, c = cst(1.0 / tiny), d = cst(1.0) / b, h = d;
  for (int i = 1; i < 200000; i++) {
    const Dual an = cst(-double(i)) * (cst(double(i)) - a);
    b = b + cst(2.0);
    d = an * d + b;
    if (std::fabs(d.v) < tiny) d = cst(tiny);
    c = b + an / c;
    if (std::fabs(c.v) < tiny) c = cst(tiny);
    d = cst(1.0) / d;
    const Dual del = d * c;
    h = h * del;
    if (std::fabs(del.v - 1.0) < 1e-17 && std::fabs(del.d) < 1e-15) break;
  }
  return -x * (dlog_pre * h.v + h.d);
}

}  // namespace gamma_grad_detail

// d x / d alpha for x ~ Gamma(alpha, 1): 0 at x = 0 (the limit), NaN for alpha <= 0 or NaN inputs.
inline double standard_gamma_grad(double alpha, double x) {
  if (std::isnan(alpha) || std::isnan(x) || alpha <= 0.0 || x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0 || std::isinf(x) || std::isinf(alpha)) return 0.0;
  return -gamma_grad_detail::dP_dalpha_over_pdf(alpha, x);
}

}  // namespace ember::fn
