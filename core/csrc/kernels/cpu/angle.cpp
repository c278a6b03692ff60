// angle: the argument of a complex number (atan2(imag, real)), as a real tensor; for real inputs
// pi where negative, 0 elsewhere, NaN kept. Integer and bool inputs compute in the default float.
#include "generated/ops/angle.h"

#include "iter/loops.h"
#include "kernels/convert.h"

namespace ember::ops {

namespace {

Tensor run_angle(const Tensor& out, const Tensor& input) {
  TensorIter it;
  it.name("angle").promotion(Promotion::ComplexToReal);
  if (is_integral(input.dtype(), true)) it.compute_dtype(default_dtype()).out_dtype(default_dtype());
  if (out.defined()) it.output(out);
  it.input(input).build();
  const ScalarType dt = it.compute_dtype();
  visit_dtype(dt, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (is_complex_v<T>) {
      unary_kernel<typename T::value_type, T>(it, [](T a) { return std::arg(a); });
    } else if constexpr (std::is_integral_v<T>) {
      EMBER_FAIL(Type, "\"angle\" is not implemented for dtype ", dtype_name(dt));
    } else {
      using C = opmath_t<T>;
      unary_kernel<T, T>(it, [](T a) {
        const C x = convert<C>(a);
        return convert<T>(x != x ? x : (x < C(0) ? C(3.14159265358979323846264338327950288) : C(0)));
      });
    }
  });
  return it.finish();
}

}  // namespace

Tensor angle(const Tensor& input) { return run_angle(Tensor(), input); }
Tensor angle_out(const Tensor& out, const Tensor& input) { return run_angle(out, input); }

}  // namespace ember::ops
