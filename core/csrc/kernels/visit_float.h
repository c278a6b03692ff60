// Dispatch over the real floating dtypes (float16, bfloat16, float32, float64) for kernels that
// take nothing else; any other dtype raises a TypeError naming the op.
#pragma once
#include <type_traits>

#include "base/error.h"
#include "types/dtype.h"

namespace ember {

template <class F>
void visit_real_float(ScalarType dt, const char* op, F&& f) {
  visit_dtype(dt, [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<opmath_t<T>> && !std::is_integral_v<T> && !is_complex_v<T>)
      f(z);
    else
      EMBER_FAIL(Type, "\"", op, "\" is not implemented for dtype ", dtype_name(dt));
  });
}

}  // namespace ember
