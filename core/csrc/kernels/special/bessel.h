// Bessel functions of orders 0 and 1: modified I (plain and exp-scaled), K (plain and scaled),
// and J, Y. In double; float inputs round the double result. The methods, by region:
//   I: the power series (positive terms) for |x| <= 22, Hankel's asymptotic series beyond.
//   K: A&S 9.6.13 (series with log(x/2) I) for x <= 1; above, the integral
//      K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt by the trapezoidal rule, which converges
//      exponentially for this analytic integrand (step min(0.2, 0.55/sqrt(x)) gives < 1e-20).
//   J, Y: Miller's backward recurrence normalised by J0 + 2 sum J_2k = 1 with the Neumann series
//      for Y0 and its derivative for Y1, for x <= 25; Hankel's asymptotic expansions beyond.
#pragma once
#include <cmath>
#include <limits>

namespace ember::fn {

namespace bessel_detail {

constexpr double pi = 3.14159265358979323846264338327950288;
constexpr double euler_gamma = 0.57721566490153286060651209008240243;

// sum_k (x/2)^(2k+nu) / (k! (k+nu)!) for nu = 0, 1 (x >= 0): the terms are positive.
// Accumulated in long double (x87's 64-bit mantissa on x86): the ~x/2 products that reach the
// largest terms would otherwise cost several ulp.
inline double i_series(int nu, double x) {
  const long double q = 0.25L * x * x;
  long double term = nu == 0 ? 1.0L : 0.5L * x;
  long double sum = term;
  for (int k = 1; k < 500; k++) {
    term *= q / ((long double)k * (long double)(k + nu));
    sum += term;
    if (term < 1e-20L * sum) break;
  }
  return double(sum);
}

// Hankel's series for e^-x sqrt(2 pi x) I_nu(x), large x: sum_k (-1)^k a_k(nu) / x^k with
// a_k = prod_{j<=k} (4nu^2 - (2j-1)^2) / (k! 8^k); stops at the smallest term (x >= 22: < 1e-18).
inline double i_asymptotic(int nu, double x) {
  const double mu = 4.0 * nu * nu;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 60; k++) {
    const double next = -term * (mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (k * 8.0 * x);
    if (std::fabs(next) >= std::fabs(term)) break;
    term = next;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return sum;
}

// e^-|x| I_nu(|x|) (scaled = true) or I_nu(|x|), nu = 0 or 1, x >= 0.
inline double bessel_i(int nu, double x, bool scaled) {
  if (x <= 22.0) {
    const double v = i_series(nu, x);
    return scaled ? v * std::exp(-x) : v;
  }
  if (std::isinf(x)) return scaled ? 0.0 : x;
  const double s = i_asymptotic(nu, x) / std::sqrt(2.0 * pi * x);
  if (scaled) return s;
  const double h = std::exp(0.5 * x);  // e^x in two halves: I0 is finite up to x ~ 713.98
  return h * s * h;
}

// e^x K_nu(x) for x > 1 by the trapezoidal rule on int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt
// (cosh t - 1 = 2 sinh(t/2)^2 keeps precision near 0); nu may be fractional (Airy uses 1/3).
inline double k_scaled_integral(double nu, double x) {
  const double h = std::fmin(0.2, 0.55 / std::sqrt(x));
  const double t_max = 2.0 * std::asinh(std::sqrt(23.0 / x));  // x (cosh t - 1) = 46 there
  double sum = 0.5;                                            // t = 0 counts half
  for (int i = 1;; i++) {
    const double t = i * h;
    if (t > t_max) break;
    const double s = std::sinh(0.5 * t);
    sum += std::exp(-2.0 * x * s * s) * std::cosh(nu * t);
  }
  return 2.0 * h * sum * 0.5;  // the integrand is even: twice the half line, trapezoid weights h
}

// K_nu(x) for 0 < x <= 1 (nu = 0, 1), A&S 9.6.13 with psi(k+1) = -gamma + H_k:
//   K0 = -(log(x/2) + gamma) I0 + sum_k H_k (x^2/4)^k / k!^2
//   K1 = 1/x + (log(x/2) + gamma) I1 - (x/4) sum_k (H_k + H_{k+1}) (x^2/4)^k / (k! (k+1)!)
//        (the -gamma of each psi folded into the I1 term, whose series is the same sum).
inline double k_series(int nu, double x) {
  const double q = 0.25 * x * x;
  const double lg = std::log(0.5 * x) + euler_gamma;
  if (nu == 0) {
    double term = 1.0, h = 0.0, sum = 0.0;
    for (int k = 1; k < 100; k++) {
      term *= q / (double(k) * k);
      h += 1.0 / k;
      sum += term * h;
      if (term * h < 1e-18 * std::fabs(sum)) break;
    }
    return -lg * i_series(0, x) + sum;
  }
  double term = 1.0, hk = 0.0, sum = 1.0;  // k = 0: H_0 + H_1 = 1
  for (int k = 1; k < 100; k++) {
    term *= q / (double(k) * (k + 1));
    hk += 1.0 / k;
    const double c = term * (2.0 * hk + 1.0 / (k + 1));
    sum += c;
    if (c < 1e-18 * sum) break;
  }
  return 1.0 / x + lg * i_series(1, x) - 0.25 * x * sum;
}

// K_nu(x) (scaled: e^x K_nu(x)) for nu = 0, 1: inf at 0, NaN below 0.
inline double bessel_k(int nu, double x, bool scaled) {
  if (std::isnan(x)) return x;
  if (x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return std::numeric_limits<double>::infinity();
  if (x <= 1.0) {
    const double k = k_series(nu, x);
    return scaled ? k * std::exp(x) : k;
  }
  if (std::isinf(x)) return 0.0;
  const double k = k_scaled_integral(double(nu), x);
  if (scaled) return k;
  if (x > 750.0) return 0.0;
  return k * std::exp(-x);
}

// Hankel's expansions for J_nu, Y_nu (nu = 0, 1), x >= 25: with
// P = sum_k (-1)^k a_2k / x^2k, Q = sum_k (-1)^k a_2k+1 / x^(2k+1) (a_k as in i_asymptotic),
// J = sqrt(2/(pi x)) (P cos chi - Q sin chi), Y = sqrt(2/(pi x)) (P sin chi + Q cos chi),
// chi = x - (nu/2 + 1/4) pi; cos/sin of chi come from those of x, so nothing subtracts an
// inexact multiple of pi.
inline void jy_asymptotic(int nu, double x, double& j, double& y) {
  const double mu = 4.0 * nu * nu;
  double p = 1.0, q = 0.0, term = 1.0;
  for (int k = 1; k < 80; k++) {
    const double next = term * (mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (k * 8.0 * x);
    if (std::fabs(next) >= std::fabs(term) && k > 2) break;
    term = next;
    // a_k / x^k enters P (k even) or Q (k odd) with sign (-1)^floor(k/2).
    const double signed_term = ((k / 2) % 2 == 0) ? term : -term;
    (k % 2 == 0 ? p : q) += signed_term;
    if (std::fabs(term) < 1e-18) break;
  }
  const double s = std::sin(x), c = std::cos(x);
  constexpr double r = 0.70710678118654752440;
  // nu = 0: chi = x - pi/4; nu = 1: chi = x - 3pi/4.
  const double cchi = nu == 0 ? r * (c + s) : r * (s - c);
  const double schi = nu == 0 ? r * (s - c) : -r * (s + c);
  const double amp = std::sqrt(2.0 / (pi * x));
  j = amp * (p * cchi - q * schi);
  y = amp * (p * schi + q * cchi);
}

// J0, J1 (and Y0, Y1 when want_y) for 0 < x <= 25 by Miller's algorithm: J_n for n from an even
// start m far above x down to 0 by J_{n-1} = (2n/x) J_n - J_{n+1}, rescaled on the way, normalised
// by J0 + 2 sum J_2k = 1. Y0 = (2/pi)(log(x/2) + gamma) J0 - (4/pi) sum_k (-1)^k J_2k / k, and
// Y1 = -Y0' = (2/pi)((log(x/2) + gamma) J1 - J0/x) + (2/pi) sum_k (-1)^k (J_2k-1 - J_2k+1) / k.
inline void jy_miller(double x, bool want_y, double& j0, double& j1, double& y0, double& y1) {
  int m = int(x + 12.0 * std::cbrt(x) + 30.0);
  m += m % 2;
  double jp1 = 0.0, jn = 1e-300;  // J_{m+1}, J_m (arbitrary scale)
  double norm = 0.0, sy0 = 0.0, sy1 = 0.0, jn_minus_2 = 0.0;
  double a0 = 0.0, a1 = 0.0;
  // Walk n = m .. 1: each step gives J_{n-1}. Keep the sums in the same (running) scale.
  double j_np1 = jp1, j_n = jn;
  for (int n = m; n >= 1; n--) {
    const double j_nm1 = (2.0 * n / x) * j_n - j_np1;
    // n even (n = 2k >= 2): J_n enters the normalisation and Y0's sum.
    if (n % 2 == 0) {
      const int k = n / 2;
      norm += 2.0 * j_n;
      sy0 += ((k % 2 == 0) ? 1.0 : -1.0) * j_n / k;
      // Y1's sum: (J_{2k-1} - J_{2k+1}) / k with sign (-1)^k.
      sy1 += ((k % 2 == 0) ? 1.0 : -1.0) * (j_nm1 - j_np1) / k;
    }
    j_np1 = j_n;
    j_n = j_nm1;
    if (std::fabs(j_n) > 1e250) {  // rescale everything kept so far
      const double s = 1e-250;
      j_n *= s;
      j_np1 *= s;
      norm *= s;
      sy0 *= s;
      sy1 *= s;
    }
  }
  (void)jn_minus_2;
  (void)a0;
  (void)a1;
  norm += j_n;  // J0
  j0 = j_n / norm;
  j1 = j_np1 / norm;
  if (want_y) {
    const double lg = std::log(0.5 * x) + euler_gamma;
    y0 = (2.0 / pi) * (lg * j0 - 2.0 * sy0 / norm);
    y1 = (2.0 / pi) * (lg * j1 - j0 / x + sy1 / norm);
  }
}

}  // namespace bessel_detail

inline double bessel_i0(double x) {
  if (std::isnan(x)) return x;
  return bessel_detail::bessel_i(0, std::fabs(x), false);
}
inline double bessel_i0e(double x) {
  if (std::isnan(x)) return x;
  return bessel_detail::bessel_i(0, std::fabs(x), true);
}
inline double bessel_i1(double x) {  // odd
  if (std::isnan(x)) return x;
  return std::copysign(bessel_detail::bessel_i(1, std::fabs(x), false), x);
}
inline double bessel_i1e(double x) {
  if (std::isnan(x)) return x;
  return std::copysign(bessel_detail::bessel_i(1, std::fabs(x), true), x);
}
inline double bessel_k0(double x) { return bessel_detail::bessel_k(0, x, false); }
inline double bessel_k1(double x) { return bessel_detail::bessel_k(1, x, false); }
inline double bessel_k0e(double x) { return bessel_detail::bessel_k(0, x, true); }
inline double bessel_k1e(double x) { return bessel_detail::bessel_k(1, x, true); }

// J0 (even), J1 (odd), Y0, Y1 (NaN for x < 0, -inf at 0).
inline double bessel_j(int nu, double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  if (std::isinf(a)) return 0.0;
  double j0, j1, y0, y1;
  if (a == 0.0) {
    j0 = 1.0;
    j1 = 0.0;
  } else if (a < 1e-8) {  // leading terms (the next are below 1e-16 relative); Miller's 2n/x overflows
    j0 = 1.0 - 0.25 * a * a;
    j1 = 0.5 * a;
  } else if (a <= 25.0) {
    bessel_detail::jy_miller(a, false, j0, j1, y0, y1);
  } else {
    bessel_detail::jy_asymptotic(nu, a, nu == 0 ? j0 : j1, nu == 0 ? y0 : y1);
  }
  if (nu == 0) return j0;
  return x < 0.0 ? -j1 : j1;
}
inline double bessel_y(int nu, double x) {
  if (std::isnan(x)) return x;
  if (x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return 0.0;
  double j0, j1, y0, y1;
  if (x < 1e-8) {  // A&S 9.1.13 leading terms: Y0 ~ (2/pi)(log(x/2) + gamma), Y1 ~ -2/(pi x)
    const double lg = std::log(0.5 * x) + bessel_detail::euler_gamma;
    return nu == 0 ? (2.0 / bessel_detail::pi) * lg
                   : -2.0 / (bessel_detail::pi * x) + x / bessel_detail::pi * (lg - 0.5);
  }
  if (x <= 25.0) {
    bessel_detail::jy_miller(x, true, j0, j1, y0, y1);
  } else {
    bessel_detail::jy_asymptotic(nu, x, nu == 0 ? j0 : j1, nu == 0 ? y0 : y1);
  }
  return nu == 0 ? y0 : y1;
}
inline double bessel_j0(double x) { return bessel_j(0, x); }
inline double bessel_j1(double x) { return bessel_j(1, x); }
inline double bessel_y0(double x) { return bessel_y(0, x); }
inline double bessel_y1(double x) { return bessel_y(1, x); }

}  // namespace ember::fn
