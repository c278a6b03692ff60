// softmax and log_softmax along a dim: per line, the max, then the sum of exp(x - max), in the
// compute type (float for the 16-bit floats, the type itself otherwise). Lines along the last dim
// are contiguous rows; along another dim, a block of `inner` lines is swept together so every
// pass reads memory in order.
#include "generated/ops/softmax.h"

#include <cmath>
#include <vector>

#include "device/parallel.h"
#include "generated/ops/log_softmax.h"
#include "iter/copy.h"
#include "kernels/convert.h"
#include "tensor/factory.h"

namespace ember::ops {

namespace {

template <class T, bool Log>
void softmax_lines(const T* x, T* y, int64_t outer, int64_t n, int64_t inner) {
  using C = opmath_t<T>;
  parallel_for(outer, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, n * inner)), [&](int64_t ob, int64_t oe) {
    std::vector<C> mx(inner), sum(inner);
    for (int64_t o = ob; o < oe; o++) {
      const T* xs = x + o * n * inner;
      T* ys = y + o * n * inner;
      std::fill(mx.begin(), mx.end(), -std::numeric_limits<C>::infinity());
      std::fill(sum.begin(), sum.end(), C(0));
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < inner; i++) {
          const C v = convert<C>(xs[j * inner + i]);
          mx[i] = v > mx[i] || v != v ? v : mx[i];
        }
      for (int64_t i = 0; i < inner; i++)  // a line of -inf has no finite max: shift by 0 instead
        if (std::isinf(mx[i]) && mx[i] < 0) mx[i] = C(0);
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < inner; i++) {
          const C e = std::exp(convert<C>(xs[j * inner + i]) - mx[i]);
          sum[i] += e;
          if constexpr (!Log) ys[j * inner + i] = convert<T>(e);
        }
      for (int64_t i = 0; i < inner; i++) sum[i] = Log ? mx[i] + std::log(sum[i]) : C(1) / sum[i];
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < inner; i++) {
          if constexpr (Log)
            ys[j * inner + i] = convert<T>(convert<C>(xs[j * inner + i]) - sum[i]);
          else
            ys[j * inner + i] = convert<T>(convert<C>(ys[j * inner + i]) * sum[i]);
        }
    }
  });
}

template <bool Log>
Tensor softmax_impl(const Tensor& input, int64_t dim, ScalarType dtype, const char* name) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(input.dim(), 1));
  const ScalarType out_dt = dtype == ScalarType::Undefined ? input.dtype() : dtype;
  EMBER_CHECK(is_floating(out_dt), Type, "\"", name, "\" is not implemented for dtype ", dtype_name(out_dt),
              " (give a floating-point input or dtype=)");
  Tensor out = empty(input.sizes(), out_dt, input.device());
  if (input.is_meta() || input.numel() == 0) return out;
  const Tensor x = contiguous_as(input, out_dt);
  int64_t outer = 1, inner = 1;
  const int64_t n = input.dim() ? input.sizes()[d] : 1;
  for (int64_t k = 0; k < d; k++) outer *= input.sizes()[k];
  for (int64_t k = d + 1; k < input.dim(); k++) inner *= input.sizes()[k];
  visit_dtype(out_dt, [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<opmath_t<T>> && !std::is_integral_v<T>)
      softmax_lines<T, Log>(x.data_as<T>(), out.data_as<T>(), outer, n, inner);
  });
  return out;
}

}  // namespace

Tensor softmax(const Tensor& input, int64_t dim, ScalarType dtype) {
  return softmax_impl<false>(input, dim, dtype, "softmax");
}
Tensor log_softmax(const Tensor& input, int64_t dim, ScalarType dtype) {
  return softmax_impl<true>(input, dim, dtype, "log_softmax");
}

}  // namespace ember::ops
