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
  if (!is_integral(input.dtype(), true) || !exponent.is_wrapped_number() ||
      !is_integral(exponent.dtype(), true))
    return;
  EMBER_CHECK(scalar_value(exponent).to_int() >= 0, Runtime, "Integers to negative integer powers are not allowed.");
}

void check_alpha(const TensorIter& it, const Scalar& alpha) {
  const ScalarType dt = it.compute_dtype();
  EMBER_CHECK(!alpha.is_bool() || dt == ScalarType::Bool, Runtime, "Boolean alpha only supported for Boolean results.");
  EMBER_CHECK(is_floating(dt) || is_complex(dt) || alpha.is_int() || alpha.is_bool(), Runtime,
              "For integral input tensors, argument alpha must not be a floating point number.");
  EMBER_CHECK(is_complex(dt) || !alpha.is_complex(), Runtime,
              "For non-complex input tensors, argument alpha must not be a complex number.");
}

}  // namespace ember
