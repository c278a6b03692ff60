// div with its rounding modes, and float_power: ops composed of other ops' kernels.
#include "generated/ops/div.h"

#include "generated/ops/_div_trunc.h"
#include "generated/ops/float_power.h"
#include "generated/ops/floor_divide.h"
#include "generated/ops/pow.h"
#include "generated/ops/true_divide.h"
#include "iter/copy.h"

namespace ember::ops {

namespace {
enum class Rounding { None, Trunc, Floor };
Rounding rounding(const std::optional<std::string>& mode) {
  if (!mode) return Rounding::None;
  if (*mode == "trunc") return Rounding::Trunc;
  if (*mode == "floor") return Rounding::Floor;
  EMBER_FAIL(Value, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}
ScalarType float_power_dtype(const Tensor& a, const Tensor& b) {
  return is_complex(a.dtype()) || is_complex(b.dtype()) ? ScalarType::Complex128 : ScalarType::Float64;
}
}  // namespace

Tensor div(const Tensor& input, const Tensor& other, const std::optional<std::string>& rounding_mode) {
  switch (rounding(rounding_mode)) {
    case Rounding::Trunc:
      return _div_trunc(input, other);
    case Rounding::Floor:
      return floor_divide(input, other);
    default:
      return true_divide(input, other);
  }
}

Tensor div_(const Tensor& input, const Tensor& other, const std::optional<std::string>& rounding_mode) {
  switch (rounding(rounding_mode)) {
    case Rounding::Trunc:
      return _div_trunc_(input, other);
    case Rounding::Floor:
      return floor_divide_(input, other);
    default:
      return true_divide_(input, other);
  }
}

Tensor div_out(const Tensor& out, const Tensor& input, const Tensor& other,
               const std::optional<std::string>& rounding_mode) {
  switch (rounding(rounding_mode)) {
    case Rounding::Trunc:
      return _div_trunc_out(out, input, other);
    case Rounding::Floor:
      return floor_divide_out(out, input, other);
    default:
      return true_divide_out(out, input, other);
  }
}

Tensor float_power(const Tensor& input, const Tensor& exponent) {
  ScalarType dt = float_power_dtype(input, exponent);
  return pow(to_dtype(input, dt), to_dtype(exponent, dt));
}

Tensor float_power_(const Tensor& input, const Tensor& exponent) {
  ScalarType dt = float_power_dtype(input, exponent);
  EMBER_CHECK(input.dtype() == dt, Runtime, "the base given to float_power_ has dtype ", dtype_name(input.dtype()),
              " but the operation's result requires dtype ", dtype_name(dt));
  return pow_(input, to_dtype(exponent, dt));
}

Tensor float_power_out(const Tensor& out, const Tensor& input, const Tensor& exponent) {
  ScalarType dt = float_power_dtype(input, exponent);
  EMBER_CHECK(out.dtype() == dt, Runtime, "the output given to float_power has dtype ", dtype_name(out.dtype()),
              " but the operation's result requires dtype ", dtype_name(dt));
  return pow_out(out, to_dtype(input, dt), to_dtype(exponent, dt));
}

}  // namespace ember::ops
