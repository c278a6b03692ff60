// Per-op argument checks (see kernels/operand_checks.h).
#include "kernels/operand_checks.h"

#include "kernels/scalar_value.h"

namespace ember {

void check_sub_operands(const Tensor& input, const Tensor& other) {
  const bool a = input.dtype() == ScalarType::Bool, b = other.dtype() == ScalarType::Bool;
  EMBER_CHECK(!(a && b), Runtime,
              "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead.");
  EMBER_CHECK(!(a || b), Runtime,
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert "
              "a mask, use the `~` or `logical_not()` operator instead.");
}

void check_pow_operands(const Tensor& input, const Tensor& exponent) {
  check_pow_exponent_fits(input, exponent);
  if (!is_integral(input.dtype(), true) || !exponent.is_wrapped_number() || !is_integral(exponent.dtype(), true))
    return;
  EMBER_CHECK(scalar_value(exponent).to_int() >= 0, Runtime, "Integers to negative integer powers are not allowed.");
}

void check_pow_exponent_fits(const Tensor& input, const Tensor& exponent) {
  // PyTorch converts a number exponent to the tensor's dtype when the result keeps it: an integer
  // exponent of an integer tensor, any exponent of a float16/bfloat16 one (float32/64 take any double).
  if (!exponent.is_wrapped_number()) return;
  const ScalarType dt = input.dtype();
  const bool int_result = is_integral(dt, false) && is_integral(exponent.dtype(), true);
  const bool reduced_float = dt == ScalarType::Float16 || dt == ScalarType::BFloat16;
  if (int_result || reduced_float) check_scalar_fits(scalar_value(exponent), dt);
}

void check_alpha(const TensorIter& it, const Scalar& alpha) {
  const ScalarType dt = it.compute_dtype();
  EMBER_CHECK(!alpha.is_bool() || dt == ScalarType::Bool, Runtime, "Boolean alpha only supported for Boolean results.");
  EMBER_CHECK(is_floating(dt) || is_complex(dt) || alpha.is_int() || alpha.is_bool(), Runtime,
              "For integral input tensors, argument alpha must not be a floating point number.");
  EMBER_CHECK(is_complex(dt) || !alpha.is_complex(), Runtime,
              "For non-complex input tensors, argument alpha must not be a complex number.");
  check_scalar_fits(alpha, dt);  // alpha=300 on int8 raises rather than wrapping, as in PyTorch
}

void check_threshold_args(const TensorIter& it, double threshold, double value) {
  // float16/bfloat16 compute in float32, so the bounds are float32's there.
  ScalarType dt = it.compute_dtype();
  if (dt == ScalarType::Float16 || dt == ScalarType::BFloat16) dt = ScalarType::Float32;
  check_scalar_fits(Scalar(threshold), dt);
  check_scalar_fits(Scalar(value), dt);
}

void check_hardtanh_args(const TensorIter& it, double min_val, double max_val) {
  const ScalarType dt = it.compute_dtype();
  EMBER_CHECK(dt != ScalarType::UInt8 || (min_val >= 0 && max_val >= 0), Runtime,
              "cannot do hardtanh on an unsigned type with negative limits");
  check_scalar_fits(Scalar(min_val), dt);
  check_scalar_fits(Scalar(max_val), dt);
}

}  // namespace ember
