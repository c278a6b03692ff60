// ScalarType: the twelve element types, their C++ types, sizes, names and categories.
#pragma once
#include <complex>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "types/half.h"

namespace ember {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

enum class ScalarType : int8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,
  Complex128,
  Undefined
};
constexpr int kNumScalarTypes = 12;

inline int64_t itemsize(ScalarType t) {
  static constexpr int8_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16, 0};
  return sizes[int(t)];
}
inline bool is_complex(ScalarType t) { return t == ScalarType::Complex64 || t == ScalarType::Complex128; }
inline bool is_floating(ScalarType t) { return t >= ScalarType::Float16 && t <= ScalarType::Float64; }
inline bool is_integral(ScalarType t, bool include_bool) {
  return (t >= ScalarType::UInt8 && t <= ScalarType::Int64) || (include_bool && t == ScalarType::Bool);
}
inline bool is_signed(ScalarType t) { return t != ScalarType::Bool && t != ScalarType::UInt8; }
inline bool is_reduced_float(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }
inline ScalarType to_real(ScalarType t) {
  return t == ScalarType::Complex64 ? ScalarType::Float32 : t == ScalarType::Complex128 ? ScalarType::Float64 : t;
}
inline ScalarType to_complex(ScalarType t) {
  return t == ScalarType::Float64 || t == ScalarType::Complex128 ? ScalarType::Complex128 : ScalarType::Complex64;
}
const char* dtype_name(ScalarType t);  // "float32"

template <class T>
struct CType;
template <>
struct CType<bool> {
  static constexpr ScalarType value = ScalarType::Bool;
};
template <>
struct CType<uint8_t> {
  static constexpr ScalarType value = ScalarType::UInt8;
};
template <>
struct CType<int8_t> {
  static constexpr ScalarType value = ScalarType::Int8;
};
template <>
struct CType<int16_t> {
  static constexpr ScalarType value = ScalarType::Int16;
};
template <>
struct CType<int32_t> {
  static constexpr ScalarType value = ScalarType::Int32;
};
template <>
struct CType<int64_t> {
  static constexpr ScalarType value = ScalarType::Int64;
};
template <>
struct CType<Half> {
  static constexpr ScalarType value = ScalarType::Float16;
};
template <>
struct CType<BFloat16> {
  static constexpr ScalarType value = ScalarType::BFloat16;
};
template <>
struct CType<float> {
  static constexpr ScalarType value = ScalarType::Float32;
};
template <>
struct CType<double> {
  static constexpr ScalarType value = ScalarType::Float64;
};
template <>
struct CType<complex64> {
  static constexpr ScalarType value = ScalarType::Complex64;
};
template <>
struct CType<complex128> {
  static constexpr ScalarType value = ScalarType::Complex128;
};

// The type arithmetic happens in: float for the 16-bit floats, the type itself otherwise.
template <class T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <class T>
using opmath_t = typename OpMath<T>::type;

template <class T>
struct IsComplexT : std::false_type {};
template <class T>
struct IsComplexT<std::complex<T>> : std::true_type {};
template <class T>
constexpr bool is_complex_v = IsComplexT<T>::value;

// Calls f(T{}) with T the C++ type of `t`; the dtype is picked once, outside any loop.
template <class F>
decltype(auto) visit_dtype(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Bool:
      return f(bool{});
    case ScalarType::UInt8:
      return f(uint8_t{});
    case ScalarType::Int8:
      return f(int8_t{});
    case ScalarType::Int16:
      return f(int16_t{});
    case ScalarType::Int32:
      return f(int32_t{});
    case ScalarType::Int64:
      return f(int64_t{});
    case ScalarType::Float16:
      return f(Half{});
    case ScalarType::BFloat16:
      return f(BFloat16{});
    case ScalarType::Float32:
      return f(float{});
    case ScalarType::Float64:
      return f(double{});
    case ScalarType::Complex64:
      return f(complex64{});
    case ScalarType::Complex128:
      return f(complex128{});
    default:
      EMBER_FAIL(Type, "undefined dtype");
  }
}

}  // namespace ember
