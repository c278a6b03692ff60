// clamp / clip / clamp_min / clamp_max with Python-number or tensor bounds. Bounds take part in
// type promotion (clamp(int_tensor, min=0.5) is float); NaN in the input or a bound gives NaN;
// when min > max every element becomes max.
#include "generated/ops/clamp.h"

#include <limits>

#include "generated/ops/clamp_max.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/clip.h"
#include "iter/loops.h"
#include "kernels/convert.h"
#include "kernels/functors.h"
#include "kernels/scalar_value.h"
#include "types/scalar_fits.h"

namespace ember::ops {

namespace {

// A Python-number bound must fit the dtype it is used in (types/scalar_fits.h). Unlike PyTorch,
// which wraps -1 to 255 for uint8 (clamping everything to 255), a negative bound for an unsigned
// dtype is refused.
void check_bound_fits(const Tensor& bound, ScalarType dtype) {
  if (!bound.defined() || !bound.is_wrapped_number()) return;
  const Scalar s = scalar_value(bound);
  EMBER_CHECK(scalar_fits(s, dtype, true, true), Runtime, "clamp(): value ",
              s.is_int() ? std::to_string(s.to_int()) : std::to_string(s.to_double()), " cannot be converted to type ",
              dtype_name(dtype), " without overflow");
}

Tensor run_clamp(const Tensor& out, bool inplace, const Tensor& input, const Tensor& lo, const Tensor& hi) {
  EMBER_CHECK(lo.defined() || hi.defined(), Runtime, "clamp(): At least one of 'min' or 'max' must not be None");
  EMBER_CHECK(!is_complex(input.dtype()), Type, "clamp is not supported for complex types (got ",
              dtype_name(input.dtype()), ")");
  TensorIter it;
  it.name("clamp");
  if (out.defined()) it.output(out, inplace);
  it.input(input);
  if (lo.defined()) it.input(lo);
  if (hi.defined()) it.input(hi);
  it.build();
  const ScalarType dt = it.compute_dtype();
  EMBER_CHECK(!is_complex(dt), Type, "clamp is not supported for complex types (got ", dtype_name(dt), ")");
  visit_dtype(dt, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool> || is_complex_v<T>) {
      EMBER_FAIL(Type, "\"clamp\" is not implemented for dtype ", dtype_name(dt));
    } else {
      using C = opmath_t<T>;
      check_bound_fits(lo, dt);
      check_bound_fits(hi, dt);
      // NaN-propagating max/min: a NaN anywhere wins, and min > max ends at max.
      if (lo.defined() && hi.defined()) {
        ternary_kernel<T, T, T, T>(it, [](T a, T l, T h) {
          return convert<T>(fn::minimum(fn::maximum(convert<C>(a), convert<C>(l)), convert<C>(h)));
        });
      } else if (lo.defined()) {
        binary_kernel<T, T, T>(it, [](T a, T l) { return convert<T>(fn::maximum(convert<C>(a), convert<C>(l))); });
      } else {
        binary_kernel<T, T, T>(it, [](T a, T h) { return convert<T>(fn::minimum(convert<C>(a), convert<C>(h))); });
      }
    }
  });
  return it.finish();
}

const Tensor kNone;

}  // namespace

Tensor clamp(const Tensor& input, const Tensor& min, const Tensor& max) {
  return run_clamp(kNone, false, input, min, max);
}
Tensor clamp_(const Tensor& input, const Tensor& min, const Tensor& max) {
  return run_clamp(input, true, input, min, max);
}
Tensor clamp_out(const Tensor& out, const Tensor& input, const Tensor& min, const Tensor& max) {
  return run_clamp(out, false, input, min, max);
}

Tensor clip(const Tensor& input, const Tensor& min, const Tensor& max) { return clamp(input, min, max); }
Tensor clip_(const Tensor& input, const Tensor& min, const Tensor& max) { return clamp_(input, min, max); }
Tensor clip_out(const Tensor& out, const Tensor& input, const Tensor& min, const Tensor& max) {
  return clamp_out(out, input, min, max);
}

Tensor clamp_min(const Tensor& input, const Tensor& min) { return run_clamp(kNone, false, input, min, kNone); }
Tensor clamp_min_(const Tensor& input, const Tensor& min) { return run_clamp(input, true, input, min, kNone); }
Tensor clamp_min_out(const Tensor& out, const Tensor& input, const Tensor& min) {
  return run_clamp(out, false, input, min, kNone);
}

Tensor clamp_max(const Tensor& input, const Tensor& max) { return run_clamp(kNone, false, input, kNone, max); }
Tensor clamp_max_(const Tensor& input, const Tensor& max) { return run_clamp(input, true, input, kNone, max); }
Tensor clamp_max_out(const Tensor& out, const Tensor& input, const Tensor& max) {
  return run_clamp(out, false, input, kNone, max);
}

}  // namespace ember::ops
