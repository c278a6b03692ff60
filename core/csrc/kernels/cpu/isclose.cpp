// isclose / allclose: |input - other| <= atol + rtol * |other| elementwise (equal values, and NaNs
// when equal_nan, always count as close; infinities only when equal). Floating inputs compute in
// their own precision as PyTorch does; integers and bools in double, so small integer types
// cannot overflow in the subtraction.
#include "generated/ops/isclose.h"

#include "generated/ops/allclose.h"
#include "iter/copy.h"
#include "iter/loops.h"
#include "kernels/convert.h"
#include "kernels/functors.h"

namespace ember::ops {

namespace {

template <class C>
inline bool close(C a, C b, real_t<C> rtol, real_t<C> atol, bool equal_nan) {
  if (a == b) return true;
  if (equal_nan && fn::isnan(a) && fn::isnan(b)) return true;
  const real_t<C> diff = std::abs(a - b);
  return std::isfinite(diff) && diff <= atol + rtol * std::abs(b);
}

}  // namespace

Tensor isclose(const Tensor& input, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(input.dtype() == other.dtype(), Runtime, "isclose(): ", dtype_name(input.dtype()), " did not match ",
              dtype_name(other.dtype()), " (input and other must have the same dtype)");
  EMBER_CHECK(rtol >= 0, Runtime, "rtol must be greater than or equal to zero, but got ", rtol);
  EMBER_CHECK(atol >= 0, Runtime, "atol must be greater than or equal to zero, but got ", atol);
  TensorIter it;
  it.name("isclose").promotion(Promotion::BoolOut).input(input).input(other).build();
  visit_dtype(it.compute_dtype(), [&](auto zero) {
    using T = decltype(zero);
    using C = std::conditional_t<std::is_integral_v<T>, double, opmath_t<T>>;
    using R = real_t<C>;
    const R r = R(rtol), a = R(atol);
    binary_kernel<bool, T, T>(it, [=](T x, T y) { return close(convert<C>(x), convert<C>(y), r, a, equal_nan); });
  });
  return it.finish();
}

bool allclose(const Tensor& input, const Tensor& other, double rtol, double atol, bool equal_nan) {
  Tensor c = isclose(input, other, rtol, atol, equal_nan);
  EMBER_CHECK(!c.is_meta(), Runtime, "allclose(): meta tensors hold no values to compare");
  c = contiguous(c);
  const bool* p = c.data_as<bool>();
  for (int64_t i = 0, n = c.numel(); i < n; i++)
    if (!p[i]) return false;
  return true;
}

}  // namespace ember::ops
