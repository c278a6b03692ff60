// round(input, decimals): round half to even, optionally to a number of decimal places; integer
// inputs pass through unchanged (decimals != 0 is refused for them, as in PyTorch).
#include "generated/ops/round.h"

#include "iter/loops.h"
#include "kernels/convert.h"
#include "kernels/functors.h"

namespace ember::ops {

namespace {

void round_kernel(TensorIter& it, int64_t decimals) {
  const ScalarType dt = it.compute_dtype();
  visit_dtype(dt, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool> || is_complex_v<T>) {
      EMBER_FAIL(Type, "\"round\" is not implemented for dtype ", dtype_name(dt));
    } else if constexpr (std::is_integral_v<T>) {
      EMBER_CHECK(decimals == 0, Runtime, "round(): decimals=", decimals,
                  " is only supported for floating-point inputs, got dtype ", dtype_name(dt));
      unary_kernel<T, T>(it, [](T a) { return a; });
    } else {
      using C = opmath_t<T>;
      if (decimals == 0) {
        unary_kernel<T, T>(it, [](T a) { return convert<T>(fn::round(convert<C>(a))); });
      } else {
        const bool neg = decimals < 0;
        const C scale = C(std::pow(10.0, double(neg ? -decimals : decimals)));
        unary_kernel<T, T>(it, [=](T a) { return convert<T>(fn::round_scaled(convert<C>(a), scale, neg)); });
      }
    }
  });
}

}  // namespace

Tensor round(const Tensor& input, int64_t decimals) {
  TensorIter it;
  it.name("round").input(input).build();
  round_kernel(it, decimals);
  return it.finish();
}

Tensor round_(const Tensor& input, int64_t decimals) {
  TensorIter it;
  it.name("round").output(input, true).input(input).build();
  round_kernel(it, decimals);
  return it.finish();
}

Tensor round_out(const Tensor& out, const Tensor& input, int64_t decimals) {
  TensorIter it;
  it.name("round").output(out).input(input).build();
  round_kernel(it, decimals);
  return it.finish();
}

}  // namespace ember::ops
