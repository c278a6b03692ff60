// scalar_value(t): the single element of a CPU tensor (e.g. a wrapped Python number) as a Scalar,
// for kernels that take a number operand by value instead of as a broadcast tensor.
#pragma once
#include "tensor/factory.h"
#include "types/scalar_fits.h"

namespace ember {

inline Scalar scalar_value(const Tensor& t) {
  EMBER_CHECK(t.numel() == 1 && t.device().is_cpu(), Runtime,
              "expected a one-element CPU tensor for a scalar operand, got ", t.numel(), " elements on ",
              t.device().str());
  return visit_dtype(t.dtype(), [&](auto zero) -> Scalar {
    using T = decltype(zero);
    const T v = *t.data_as<T>();
    if constexpr (std::is_same_v<T, bool>)
      return Scalar(v);
    else if constexpr (is_complex_v<T>)
      return Scalar(complex128(v));
    else if constexpr (std::is_integral_v<T>)
      return Scalar(int64_t(v));
    else
      return Scalar(double(v));
  });
}

// PyTorch's check when a one-element value (a Python number or a 0-dim tensor) is written into a
// tensor of `dtype` (masked_fill, index_fill, scatter's value): RuntimeError "value cannot be converted
// to type <dtype> without overflow" unless it fits.
inline void check_value_fits(const Tensor& value, ScalarType dtype) {
  if (value.numel() == 1 && value.device().is_cpu()) check_scalar_fits(scalar_value(value), dtype);
}

}  // namespace ember
