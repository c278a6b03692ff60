// Scalar: a Python number held in C++ (bool, int64, double or complex double) with conversions.
#pragma once
#include <complex>
#include <cstdint>

#include "types/dtype.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Float, Complex };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { i_ = v; }
  Scalar(int v) : kind_(Kind::Int) { i_ = v; }
  Scalar(int64_t v) : kind_(Kind::Int) { i_ = v; }
  Scalar(double v) : kind_(Kind::Float) { d_ = v; }
  Scalar(complex128 v) : kind_(Kind::Complex), z_(v) {}

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_complex() const { return kind_ == Kind::Complex; }

  // The dtype a Python number of this kind becomes on its own (float -> float64 as in NumPy).
  ScalarType natural_dtype() const {
    switch (kind_) {
      case Kind::Bool:
        return ScalarType::Bool;
      case Kind::Int:
        return ScalarType::Int64;
      case Kind::Float:
        return ScalarType::Float64;
      default:
        return ScalarType::Complex128;
    }
  }

  double to_double() const { return kind_ == Kind::Float ? d_ : kind_ == Kind::Complex ? z_.real() : double(i_); }
  int64_t to_int() const {
    return kind_ == Kind::Float ? int64_t(d_) : kind_ == Kind::Complex ? int64_t(z_.real()) : i_;
  }
  complex128 to_complex() const { return kind_ == Kind::Complex ? z_ : complex128(to_double(), 0.0); }
  bool to_bool() const {
    return kind_ == Kind::Complex ? z_ != complex128(0) : kind_ == Kind::Float ? d_ != 0 : i_ != 0;
  }

  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>)
      return to_bool();
    else if constexpr (is_complex_v<T>)
      return T(to_complex());
    else if constexpr (std::is_integral_v<T>)
      return kind_ == Kind::Float || kind_ == Kind::Complex ? T(to_double()) : T(i_);
    else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      return T(float(to_double()));
    else
      return T(to_double());
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
  complex128 z_{};
};

}  // namespace ember
