// Scalar math for the unary and pointwise ops of core/ops/unary.yaml and pointwise.yaml: rounding,
// sign, exp/log variants, sigmoid/logit, float classification and nan_to_num, each over the
// compute type C (float for the 16-bit floats) with complex versions where std:: has none.
#pragma once
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <type_traits>

#include "kernels/functors.h"
#include "kernels/special_math.h"

namespace ember::fn {

// --- rounding: integers are their own floor/ceil/trunc/round ---
template <class T>
inline T floor(T a) {
  if constexpr (std::is_integral_v<T>)
    return a;
  else
    return std::floor(a);
}
template <class T>
inline T ceil(T a) {
  if constexpr (std::is_integral_v<T>)
    return a;
  else
    return std::ceil(a);
}
template <class T>
inline T trunc(T a) {
  if constexpr (std::is_integral_v<T>)
    return a;
  else
    return std::trunc(a);
}
template <class T>
inline T frac(T a) {
  return a - std::trunc(a);
}
// Round half to even (the default FE_TONEAREST mode, which nothing in ember changes).
template <class T>
inline T round(T a) {
  if constexpr (std::is_integral_v<T>)
    return a;
  else
    return std::nearbyint(a);
}
// round(a, decimals): scale by 10^|decimals|, round half to even, scale back. `scale` is
// 10^|decimals| and `neg` says decimals < 0 (then the scaling runs the other way).
template <class T>
inline T round_scaled(T a, T scale, bool neg) {
  return neg ? std::nearbyint(a / scale) * scale : std::nearbyint(a * scale) / scale;
}

// --- sign ---
// sgn: sign for real numbers, z/|z| for complex (0 at 0). An infinite z with one infinite part
// points along that axis (sgn(inf+0j) == 1, as in NumPy; a plain division would give nan+0j).
template <class T>
inline T sgn(T a) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    const R m = std::abs(a), re = a.real(), im = a.imag();
    if (m == R(0)) return T(0);
    if (std::isinf(m)) {
      const R nan = std::numeric_limits<R>::quiet_NaN();
      if (std::isinf(re) && std::isfinite(im)) return T(std::copysign(R(1), re), R(0));
      if (std::isinf(im) && std::isfinite(re)) return T(R(0), std::copysign(R(1), im));
      return T(nan, nan);
    }
    return T(re / m, im / m);
  } else {
    return sign(a);
  }
}

// --- exponentials and logarithms ---
template <class T>
inline T exp2(T a) {
  if constexpr (is_complex_v<T>)
    return std::exp(a * typename T::value_type(0.693147180559945309417232121458176568));
  else
    return std::exp2(a);
}
// exp(z) - 1 without cancellation near 0: Re = expm1(x) cos(y) - 2 sin^2(y/2), Im = e^x sin(y).
template <class T>
inline T expm1(T a) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    const R x = a.real(), y = a.imag();
    if (y == R(0)) return T(std::expm1(x), y);
    const R s = std::sin(y / R(2));
    return T(std::expm1(x) * std::cos(y) - R(2) * s * s, std::exp(x) * std::sin(y));
  } else {
    return std::expm1(a);
  }
}
template <class T>
inline T log2(T a) {
  if constexpr (is_complex_v<T>)
    return std::log(a) / typename T::value_type(0.693147180559945309417232121458176568);
  else
    return std::log2(a);
}
// log(1 + z): near 0, |1+z|^2 - 1 = 2x + x^2 + y^2 goes through log1p; far from 0 std::log is exact enough.
template <class T>
inline T log1p(T a) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    const R x = a.real(), y = a.imag();
    if (std::fabs(x) < R(0.5) && std::fabs(y) < R(0.5))
      return T(R(0.5) * std::log1p(x * (R(2) + x) + y * y), std::atan2(y, R(1) + x));
    return std::log(T(R(1) + x, y));
  } else {
    return std::log1p(a);
  }
}

// --- sigmoid / logit ---
template <class T>
inline T sigmoid(T a) {
  return T(1) / (T(1) + std::exp(-a));
}
// logit(x) = log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps >= 0 (a negative eps means None).
template <class T>
inline T logit(T x, T eps) {
  if (eps >= T(0)) x = x < eps ? eps : (x > T(1) - eps ? T(1) - eps : x);
  return x == T(1) ? std::numeric_limits<T>::infinity() : std::log(x / (T(1) - x));
}

// --- classification (integers are always finite) ---
template <class T>
inline bool isnan(T a) {
  if constexpr (is_complex_v<T>)
    return std::isnan(a.real()) || std::isnan(a.imag());
  else if constexpr (std::is_floating_point_v<T>)
    return std::isnan(a);
  else
    return false;
}
template <class T>
inline bool isinf(T a) {
  if constexpr (is_complex_v<T>)
    return std::isinf(a.real()) || std::isinf(a.imag());
  else if constexpr (std::is_floating_point_v<T>)
    return std::isinf(a);
  else
    return false;
}
template <class T>
inline bool isfinite(T a) {
  if constexpr (is_complex_v<T>)
    return std::isfinite(a.real()) && std::isfinite(a.imag());
  else if constexpr (std::is_floating_point_v<T>)
    return std::isfinite(a);
  else
    return true;
}
template <class T>
inline bool isposinf(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return a == std::numeric_limits<T>::infinity();
  else
    return false;
}
template <class T>
inline bool isneginf(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return a == -std::numeric_limits<T>::infinity();
  else
    return false;
}
template <class T>
inline bool isreal(T a) {
  if constexpr (is_complex_v<T>)
    return a.imag() == typename T::value_type(0);
  else
    return true;
}

// --- nan_to_num ---
// The largest finite value of storage type S (whose real part, for complex S).
template <class S>
inline double finite_max() {
  if constexpr (std::is_same_v<S, Half>)
    return 65504.0;
  else if constexpr (std::is_same_v<S, BFloat16>)
    return 3.38953138925153547590470800371487866880e38;
  else
    return double(std::numeric_limits<real_t<S>>::max());
}
template <class R>
inline R nan_to_num_real(R a, R nan, R posinf, R neginf) {
  if (std::isnan(a)) return nan;
  if (a == std::numeric_limits<R>::infinity()) return posinf;
  if (a == -std::numeric_limits<R>::infinity()) return neginf;
  return a;
}
// Replacements default to 0 for NaN and to the storage type S's largest/lowest finite values.
template <class S, class T>
inline T nan_to_num(T a, std::optional<double> nan, std::optional<double> posinf, std::optional<double> neginf) {
  if constexpr (std::is_integral_v<T>) {
    return a;
  } else {
    using R = real_t<T>;
    const R n = R(nan.value_or(0.0));
    const R p = R(posinf ? *posinf : finite_max<S>());
    const R m = R(neginf ? *neginf : -finite_max<S>());
    if constexpr (is_complex_v<T>)
      return T(nan_to_num_real(a.real(), n, p, m), nan_to_num_real(a.imag(), n, p, m));
    else
      return nan_to_num_real(a, n, p, m);
  }
}

// --- interpolation ---
// lerp(a, b, w) = a + w (b - a), written from the nearer end so w = 1 gives b exactly.
template <class T, class W>
inline T lerp(T a, T b, W w) {
  return std::abs(w) < real_t<W>(0.5) ? a + w * (b - a) : b - (b - a) * (W(1) - w);
}

}  // namespace ember::fn
