// scalar_fits / check_scalar_fits (see scalar_fits.h).
#include "types/scalar_fits.h"

#include <cmath>
#include <limits>

namespace ember {

namespace {

// Largest finite value of a floating dtype (lowest is its negation).
double float_max(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
      return 65504.0;
    case ScalarType::BFloat16:
      return 3.38953138925153547590470800371487866880e+38;
    case ScalarType::Float32:
    case ScalarType::Complex64:
      return double(std::numeric_limits<float>::max());
    default:
      return std::numeric_limits<double>::max();
  }
}

bool int_fits(int64_t v, ScalarType t, bool strict_unsigned) {
  return visit_dtype(t, [&](auto z) -> bool {
    using T = decltype(z);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      constexpr int64_t lo = int64_t(std::numeric_limits<T>::min());
      constexpr uint64_t hi = uint64_t(std::numeric_limits<T>::max());
      if (v >= 0) return uint64_t(v) <= hi;
      // Negative values wrap into unsigned dtypes (uint8 takes -255..-1), as PyTorch allows.
      if constexpr (std::is_unsigned_v<T>)
        return !strict_unsigned && uint64_t(0) - uint64_t(v) <= hi;
      else
        return v >= lo;
    } else {
      return true;
    }
  });
}

bool double_fits_int(double d, ScalarType t) {
  if (std::isnan(d)) return false;
  return visit_dtype(t, [&](auto z) -> bool {
    using T = decltype(z);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      return d >= double(std::numeric_limits<T>::lowest()) && d <= double(std::numeric_limits<T>::max());
    } else {
      return true;
    }
  });
}

}  // namespace

bool scalar_fits(const Scalar& v, ScalarType dtype, bool check_float_range, bool strict_unsigned) {
  if (dtype == ScalarType::Bool || v.is_bool()) return true;
  if (v.is_complex() && !is_complex(dtype) && v.to_complex().imag() != 0) return false;
  if (is_integral(dtype, false))
    return v.is_int() ? int_fits(v.to_int(), dtype, strict_unsigned) : double_fits_int(v.to_double(), dtype);
  if (!check_float_range) return true;
  const double m = float_max(dtype);
  auto ok = [m](double d) { return !std::isfinite(d) || std::fabs(d) <= m; };
  if (v.is_complex()) return ok(v.to_complex().real()) && ok(v.to_complex().imag());
  return ok(v.to_double());
}

void check_scalar_fits(const Scalar& v, ScalarType dtype, bool check_float_range) {
  EMBER_CHECK(scalar_fits(v, dtype, check_float_range), Runtime, "value cannot be converted to type ",
              dtype_name(dtype), " without overflow");
}

}  // namespace ember
