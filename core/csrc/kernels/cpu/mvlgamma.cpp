// mvlgamma(input, p): the log of the multivariate gamma function (kernels/special/elementary.h),
// with PyTorch's checks: p >= 1 and every element above (p - 1)/2 (checked before anything is written).
#include "generated/ops/mvlgamma.h"

#include <atomic>

#include "iter/loops.h"
#include "kernels/convert.h"
#include "kernels/special/elementary.h"

namespace ember::ops {

namespace {

Tensor mvlgamma_into(const Tensor& out, bool inplace, const Tensor& input, int64_t p) {
  EMBER_CHECK(p >= 1, Value, "mvlgamma: p has to be greater than or equal to 1, got p=", p);
  TensorIter it;
  it.name("mvlgamma").promotion(Promotion::Default);
  if (inplace)
    it.output(input, true);
  else if (out.defined())
    it.output(out);
  it.input(input).build();
  const ScalarType dt = it.compute_dtype();
  const double bound = 0.5 * double(p - 1);
  visit_dtype(dt, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      if (!it.is_meta()) {
        std::atomic<bool> bad{false};
        it.for_each([&](char** ptr, const int64_t* s, int64_t n) {
          const char* b = ptr[1];
          bool found = false;
          for (int64_t i = 0; i < n; i++, b += s[1])
            found |= !(convert<double>(*reinterpret_cast<const T*>(b)) > bound);
          if (found) bad.store(true, std::memory_order_relaxed);
        });
        EMBER_CHECK(!bad.load(), Value, "mvlgamma: all elements must be greater than (p-1)/2 = ", bound);
      }
      unary_kernel<T, T>(it, [p](T a) { return convert<T>(fn::mvlgamma(convert<double>(a), p)); });
    } else {
      EMBER_FAIL(Type, "\"mvlgamma\" is not implemented for dtype ", dtype_name(dt));
    }
  });
  return it.finish();
}

}  // namespace

Tensor mvlgamma(const Tensor& input, int64_t p) { return mvlgamma_into(Tensor(), false, input, p); }
Tensor mvlgamma_(const Tensor& input, int64_t p) { return mvlgamma_into(Tensor(), true, input, p); }
Tensor mvlgamma_out(const Tensor& out, const Tensor& input, int64_t p) { return mvlgamma_into(out, false, input, p); }

}  // namespace ember::ops
