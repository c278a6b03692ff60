// convert<To>(from): one element from any dtype to any other, as a dtype cast does
// (complex to real keeps the real part, complex to bool tests both parts; float to integer truncates).
#pragma once
#include <type_traits>

#include "types/dtype.h"

namespace ember {

template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From>) {
    if constexpr (is_complex_v<To>)
      return To(typename To::value_type(v.real()), typename To::value_type(v.imag()));
    else if constexpr (std::is_same_v<To, bool>)
      return v.real() != 0 || v.imag() != 0;  // -3j is true
    else
      return convert<To>(v.real());
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return convert<To>(float(v));
  } else if constexpr (is_complex_v<To>) {
    return To(typename To::value_type(v), 0);
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(float(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // int32 converts directly, so NaN and out-of-range values give INT32_MIN as in NumPy and
    // PyTorch; narrower types go through int64 and keep the low bits (300.0 -> int8 44).
    if constexpr (sizeof(To) == 4)
      return static_cast<To>(v);
    else
      return static_cast<To>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ember
