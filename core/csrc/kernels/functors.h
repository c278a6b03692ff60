// Scalar math used by pointwise kernel expressions in core/ops/*.yaml; shared by CPU and CUDA.
// Each takes the compute type C (float for the 16-bit floats) and follows PyTorch's semantics.
#pragma once
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "base/error.h"
#include "types/dtype.h"

namespace ember {

template <class T>
struct RealOf {
  using type = T;
};
template <class T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <class T>
using real_t = typename RealOf<T>::type;

}  // namespace ember

namespace ember::fn {

template <class T>
constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Python-style floor division and remainder (sign follows the divisor).
template <class T>
inline T floor_divide(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == -1 && std::is_signed_v<T>) return T(-a);  // avoids INT_MIN / -1 overflow trap
    T q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? T(q - 1) : q;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else {
    if (b == T(0)) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return std::copysign(T(0), a / b);
    T fl = std::floor(div);
    if (div - fl > T(0.5)) fl += T(1);
    return fl;
  }
}

template <class T>
inline T remainder(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == -1 && std::is_signed_v<T>) return T(0);
    T r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r;
  } else {
    T r = std::fmod(a, b);
    return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? r + b : r;
  }
}

template <class T>
inline T fmod(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == -1 && std::is_signed_v<T>) return T(0);
    return T(a % b);
  } else {
    return std::fmod(a, b);
  }
}

template <class T>
inline T trunc_divide(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == -1 && std::is_signed_v<T>) return T(-a);
    return T(a / b);
  } else {
    return std::trunc(a / b);
  }
}

// Complex power as NumPy computes it: a real integer exponent up to 100 in magnitude is repeated
// multiplication (so z**2 == z*z exactly, 0**0 == 1 and infinities follow complex multiplication),
// a negative one the reciprocal of that; anything else is exp(b log a).
template <class T>
inline T complex_pow(T a, T b) {
  using R = typename T::value_type;
  const R n = b.real();
  if (b.imag() != R(0) || n != std::trunc(n) || std::fabs(n) > R(100)) return std::pow(a, b);
  if (n == R(0)) return T(1);
  int64_t k = int64_t(std::fabs(n));
  T r, base = a;
  bool have = false;
  while (k) {
    if (k & 1) {
      r = have ? r * base : base;
      have = true;
    }
    k >>= 1;
    if (k) base = base * base;
  }
  return n < R(0) ? T(1) / r : r;
}

template <class T>
inline T pow(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (b & 1) ? T(-1) : T(1);
      return 0;
    }
    T result = 1;
    using U = std::make_unsigned_t<T>;
    U base = U(a);
    U r = 1;
    while (b) {
      if (b & 1) r = U(r * base);
      base = U(base * base);
      b >>= 1;
    }
    result = T(r);
    return result;
  } else if constexpr (is_complex_v<T>) {
    return complex_pow(a, b);
  } else {
    return std::pow(a, b);
  }
}

template <class T>
inline T shift_left(T a, T b) {
  constexpr T bits = T(sizeof(T) * 8);
  if constexpr (std::is_same_v<T, bool>)
    return a && !b ? a : T(0);
  else
    return (b < 0 || b >= bits) ? T(0) : T(std::make_unsigned_t<T>(a) << b);
}

template <class T>
inline T shift_right(T a, T b) {
  constexpr T bits = T(sizeof(T) * 8);
  if constexpr (std::is_same_v<T, bool>)
    return a && !b ? a : T(0);
  else if constexpr (std::is_signed_v<T>)
    return (b < 0 || b >= bits) ? T(a < 0 ? -1 : 0) : T(a >> b);
  else
    return b >= bits ? T(0) : T(a >> b);
}

template <class T>
inline T sign(T a) {
  if constexpr (std::is_same_v<T, bool>)
    return a;
  else if constexpr (std::is_unsigned_v<T>)
    return T(a > 0);
  else if constexpr (std::is_integral_v<T>)
    return T((a > 0) - (a < 0));
  else
    return std::isnan(a) ? a : T((a > T(0)) - (a < T(0)));
}

template <class T>
inline auto abs(T a) {
  if constexpr (is_complex_v<T>)
    return std::abs(a);
  else if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>)
    return a;
  else if constexpr (std::is_integral_v<T>)
    return T(a < 0 ? T(0) - a : a);
  else
    return std::fabs(a);
}

// Ordering that NaN wins (minimum/maximum propagate NaN; fmin/fmax ignore it).
template <class T>
inline T maximum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return (a != a) ? a : (b != b) ? b : (a > b ? a : b);
  else
    return a > b ? a : b;
}
template <class T>
inline T minimum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return (a != a) ? a : (b != b) ? b : (a < b ? a : b);
  else
    return a < b ? a : b;
}

}  // namespace ember::fn

namespace ember::fn {

template <class T>
inline bool truth(T a) {
  if constexpr (is_complex_v<T>)
    return a.real() != 0 || a.imag() != 0;
  else
    return a != T(0);
}
template <class T>
inline T bit_not(T a) {
  if constexpr (std::is_same_v<T, bool>)
    return !a;
  else
    return T(~a);
}
template <class T>
inline T fmin(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return std::fmin(a, b);
  else
    return a < b ? a : b;
}
template <class T>
inline T fmax(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return std::fmax(a, b);
  else
    return a > b ? a : b;
}

}  // namespace ember::fn
#include "kernels/functors_math.h"  // rounding, sign, exp/log variants, classification, special functions
