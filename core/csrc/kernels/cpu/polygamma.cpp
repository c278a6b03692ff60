// polygamma(n, input): the n-th derivative of digamma (n = 0 is digamma itself).
#include "generated/ops/polygamma.h"

#include "iter/loops.h"
#include "kernels/convert.h"
#include "kernels/special_math.h"

namespace ember::ops {

namespace {

Tensor polygamma_into(const Tensor& out, int64_t n, const Tensor& input) {
  EMBER_CHECK(n >= 0, Value, "polygamma(n, x) does not support negative n, got n=", n);
  TensorIter it;
  it.name("polygamma").promotion(Promotion::IntToFloat);
  if (out.defined()) it.output(out);
  it.input(input).build();
  const ScalarType dt = it.compute_dtype();
  visit_dtype(dt, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      unary_kernel<T, T>(it, [n](T a) { return fn::polygamma(n, a); });
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      unary_kernel<T, T>(it, [n](T a) { return convert<T>(fn::polygamma(n, convert<double>(a))); });
    } else {
      EMBER_FAIL(Type, "\"polygamma\" is not implemented for dtype ", dtype_name(dt));
    }
  });
  return it.finish();
}

}  // namespace

Tensor polygamma(int64_t n, const Tensor& input) { return polygamma_into(Tensor(), n, input); }
Tensor polygamma_out(const Tensor& out, int64_t n, const Tensor& input) { return polygamma_into(out, n, input); }

}  // namespace ember::ops
