// lerp(input, end, weight) = input + weight * (end - input), weight a Python number or a tensor.
// input, end and a tensor weight must share one floating or complex dtype (no promotion), as in
// PyTorch; a number weight (or a 0-dim tensor of another dtype) is applied in the compute precision.
#include "generated/ops/lerp.h"

#include "iter/loops.h"
#include "kernels/convert.h"
#include "kernels/functors.h"
#include "kernels/scalar_value.h"

namespace ember::ops {

namespace {

Tensor run_lerp(const Tensor& out, bool inplace, const Tensor& input, const Tensor& end, const Tensor& weight) {
  EMBER_CHECK(input.dtype() == end.dtype(), Runtime, "lerp(): expected dtype ", dtype_name(input.dtype()),
              " for `end` but got dtype ", dtype_name(end.dtype()));
  // A 0-dim weight of another dtype acts as a number, as in PyTorch (lerp(f32, f32, f64 0-dim) is f32).
  const bool scalar_weight =
      weight.is_wrapped_number() || (weight.dim() == 0 && weight.dtype() != input.dtype() && weight.device().is_cpu());
  EMBER_CHECK(scalar_weight || input.dtype() == weight.dtype(), Runtime, "lerp(): expected dtype ",
              dtype_name(input.dtype()), " for `weight` but got dtype ", dtype_name(weight.dtype()));
  const ScalarType dt = input.dtype();
  EMBER_CHECK(is_floating(dt) || is_complex(dt), Type, "\"lerp\" is not implemented for dtype ", dtype_name(dt));
  TensorIter it;
  it.name("lerp");
  if (out.defined()) it.output(out, inplace);
  it.input(input).input(end);
  if (!scalar_weight) it.input(weight);
  it.build();
  Scalar w;
  if (scalar_weight) {
    w = scalar_value(weight);
    EMBER_CHECK(is_complex(dt) || !w.is_complex() || w.to_complex().imag() == 0, Runtime,
                "lerp(): a complex weight needs complex tensors, got dtype ", dtype_name(dt));
  }
  visit_dtype(dt, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) {
      EMBER_FAIL(Type, "\"lerp\" is not implemented for dtype ", dtype_name(dt));
    } else {
      using C = opmath_t<T>;
      if (scalar_weight) {
        const C wc = w.to<C>();
        binary_kernel<T, T, T>(it, [=](T a, T b) { return convert<T>(fn::lerp(convert<C>(a), convert<C>(b), wc)); });
      } else {
        ternary_kernel<T, T, T, T>(
            it, [](T a, T b, T wt) { return convert<T>(fn::lerp(convert<C>(a), convert<C>(b), convert<C>(wt))); });
      }
    }
  });
  return it.finish();
}

}  // namespace

Tensor lerp(const Tensor& input, const Tensor& end, const Tensor& weight) {
  return run_lerp(Tensor(), false, input, end, weight);
}
Tensor lerp_(const Tensor& input, const Tensor& end, const Tensor& weight) {
  return run_lerp(input, true, input, end, weight);
}
Tensor lerp_out(const Tensor& out, const Tensor& input, const Tensor& end, const Tensor& weight) {
  return run_lerp(out, false, input, end, weight);
}

}  // namespace ember::ops
