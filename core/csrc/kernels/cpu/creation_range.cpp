// Creation ops that compute their values: arange, linspace, logspace and eye (with out= forms).
// The dtype is picked once per call; each element is computed from its index, so the fill runs
// in parallel and an element's value does not depend on how the range was split.
#include <cmath>
#include <limits>

#include "device/parallel.h"
#include "generated/ops/arange.h"
#include "generated/ops/eye.h"
#include "generated/ops/linspace.h"
#include "generated/ops/logspace.h"
#include "kernels/convert.h"
#include "kernels/creation_args.h"

namespace ember::ops {

namespace {

constexpr int64_t kGrain = 1 << 15;

// Writes f(i) into element i of a 1-dim tensor (contiguous or strided, as out= may be).
template <class T, class F>
void fill_indexed(const Tensor& t, const F& f) {
  T* p = t.data_as<T>();
  int64_t n = t.numel(), s = t.dim() ? t.strides()[0] : 1;
  parallel_for(n, kGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i++) p[i * s] = f(i);
  });
}

void check_dtype(const char* op, ScalarType dt, bool complex_ok) {
  EMBER_CHECK(dt != ScalarType::Bool && (complex_ok || !is_complex(dt)), Type, "\"", op,
              "\" is not implemented for dtype ", dtype_name(dt));
}

// ---- arange ----

struct Range {
  Scalar start, end, step;
  int64_t size;
};

Range arange_range(const std::optional<Scalar>& start_in, const std::optional<Scalar>& end_in, const Scalar& step) {
  EMBER_CHECK(start_in || end_in, Type, "arange() missing required argument 'end'");
  // arange(end) is arange(0, end): a lone bound is the end whichever keyword named it.
  Scalar start = start_in && end_in ? *start_in : Scalar(int64_t(0));
  Scalar end = end_in ? *end_in : *start_in;
  EMBER_CHECK(!start.is_complex() && !end.is_complex() && !step.is_complex(), Type,
              "arange(): start, end and step must be real numbers, not complex");
  double ds = start.to_double(), de = end.to_double(), dstep = step.to_double();
  EMBER_CHECK(dstep > 0 || dstep < 0, Runtime, "step must be nonzero");  // (NaN too)
  EMBER_CHECK(std::isfinite(ds) && std::isfinite(de), Runtime, "unsupported range: ", ds, " -> ", de);
  EMBER_CHECK((dstep > 0 && de >= ds) || (dstep < 0 && de <= ds), Runtime,
              "upper bound and larger bound inconsistent with step sign");
  double size_d;
  auto integral = [](const Scalar& s) { return s.is_int() || s.is_bool(); };
  if (integral(start) && integral(end) && integral(step)) {
    // Exact in int64 (double would round past 2**53): ceil((end - start) / step).
    // In 128 bits: end - start can exceed int64 (arange(-2**63, 2**63 - 1, 2**62) has 4 elements).
    const __int128 a = start.to_int(), b = end.to_int(), st = step.to_int();
    const __int128 sgn = st > 0 ? 1 : -1;
    size_d = double((b - a + st - sgn) / st);
  } else {
    size_d = std::ceil((de - ds) / dstep);
  }
  // 2**63 itself is the first double past int64 (and NaN fails both comparisons).
  EMBER_CHECK(size_d >= 0 && size_d < 9223372036854775808.0, Runtime, "invalid size, possible overflow?");
  return {start, end, step, int64_t(size_d)};
}

ScalarType arange_dtype(const Range& r) {
  bool all_int = !r.start.is_float() && !r.end.is_float() && !r.step.is_float();
  return all_int ? ScalarType::Int64 : default_dtype();
}

void arange_fill(const Tensor& t, const Range& r) {
  check_dtype("arange", t.dtype(), false);
  if (t.is_meta()) return;
  visit_dtype(t.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // Integers accumulate in int64 (a float step truncates first, as the dtype cast does).
      const int64_t s = r.start.to<int64_t>(), st = r.step.to<int64_t>();
      // Unsigned (wrapping) arithmetic: start + step * i may pass through values beyond int64 on
      // its way to an in-range result (a range spanning more than 2**63).
      fill_indexed<T>(t, [=](int64_t i) { return T(int64_t(uint64_t(s) + uint64_t(st) * uint64_t(i))); });
    } else if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) {
      const double s = r.start.to_double(), st = r.step.to_double();
      fill_indexed<T>(t, [=](int64_t i) { return convert<T>(s + st * double(i)); });
    }
  });
  t.bump_version();
}

// ---- linspace / logspace ----

struct Identity {
  template <class T, class C>
  T operator()(T, C x) const {
    return convert<T>(x);
  }
};

// Fills `steps` points from start to end; the first half counts up from start and the second half
// down from end, so both ends are exact. Floats step in their compute type, integers in double.
// `g` maps each point to the stored value (identity for linspace, base**x for logspace).
template <class G>
void spaced_fill(const char* op, const Tensor& t, const Scalar& start, const Scalar& end, int64_t steps, const G& g) {
  check_dtype(op, t.dtype(), true);
  if (is_integral(t.dtype(), false)) {
    // Casting NaN, inf or an out-of-range bound to an integer is undefined (garbage values).
    const bool lin = std::is_same_v<G, Identity>;
    for (const Scalar* s : {&start, &end}) {
      EMBER_CHECK(std::isfinite(s->to_double()), Runtime, op, "(): start and end must be finite to fill a ",
                  dtype_name(t.dtype()), " tensor, got ", s->to_double());
      if (lin) check_fits(*s, t.dtype());
    }
  }
  if (t.is_meta() || steps == 0) return;
  visit_dtype(t.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (!std::is_same_v<T, bool>) {
      using C = std::conditional_t<std::is_integral_v<T>, double, opmath_t<T>>;
      // Integer dtypes cast the ends to T first (PyTorch does), then step between them in double.
      const C s = std::is_integral_v<T> ? C(start.to<T>()) : start.to<C>();
      const C e = std::is_integral_v<T> ? C(end.to<T>()) : end.to<C>();
      if (steps == 1) {
        fill_indexed<T>(t, [=](int64_t) { return g(z, s); });
        return;
      }
      const C step = (e - s) / C(double(steps - 1));
      const int64_t half = steps / 2;
      fill_indexed<T>(
          t, [=](int64_t i) { return g(z, i < half ? s + step * C(double(i)) : e - step * C(double(steps - 1 - i))); });
    }
  });
  t.bump_version();
}

struct PowOfBase {
  double base;
  template <class T, class C>
  T operator()(T, C x) const {
    if constexpr (is_complex_v<C>)
      return convert<T>(std::pow(complex128(base), complex128(x)));
    else
      return convert<T>(std::pow(base, double(x)));
  }
};

ScalarType spaced_dtype(const Scalar& start, const Scalar& end) {
  return start.is_complex() || end.is_complex() ? default_complex_dtype() : default_dtype();
}

void check_steps(int64_t steps) { EMBER_CHECK(steps >= 0, Runtime, "number of steps must be non-negative"); }

// ---- eye ----

void check_eye(int64_t n, int64_t m) {
  EMBER_CHECK(n >= 0, Runtime, "n must be greater or equal to 0, got ", n);
  EMBER_CHECK(m >= 0, Runtime, "m must be greater or equal to 0, got ", m);
}

void eye_fill(const Tensor& t) {
  fill_(t, Scalar(int64_t(0)));
  if (t.is_meta()) return;
  const int64_t k = std::min(t.sizes()[0], t.sizes()[1]), diag = t.strides()[0] + t.strides()[1];
  visit_dtype(t.dtype(), [&](auto z) {
    using T = decltype(z);
    T* p = t.data_as<T>();
    const T one = convert<T>(int64_t(1));
    for (int64_t i = 0; i < k; i++) p[i * diag] = one;
  });
}

}  // namespace

Tensor arange(const std::optional<Scalar>& start, const std::optional<Scalar>& end, const Scalar& step,
              ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  check_requires_grad(requires_grad);
  Range r = arange_range(start, end, step);
  ScalarType dt = dtype == ScalarType::Undefined ? arange_dtype(r) : dtype;
  check_dtype("arange", dt, false);
  Tensor t = ember::empty({r.size}, dt, creation_device(device));
  arange_fill(t, r);
  return t;
}

Tensor arange_out(const Tensor& out, const std::optional<Scalar>& start, const std::optional<Scalar>& end,
                  const Scalar& step, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  Range r = arange_range(start, end, step);
  check_dtype("arange", out.dtype(), false);
  prepare_out("arange", out, {r.size}, dtype, device, requires_grad);
  arange_fill(out, r);
  return out;
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, ScalarType dtype, std::optional<Device> device,
                bool requires_grad) {
  check_requires_grad(requires_grad);
  check_steps(steps);
  ScalarType dt = dtype == ScalarType::Undefined ? spaced_dtype(start, end) : dtype;
  check_dtype("linspace", dt, true);
  Tensor t = ember::empty({steps}, dt, creation_device(device));
  spaced_fill("linspace", t, start, end, steps, Identity{});
  return t;
}

Tensor linspace_out(const Tensor& out, const Scalar& start, const Scalar& end, int64_t steps, ScalarType dtype,
                    std::optional<Device> device, bool requires_grad) {
  check_steps(steps);
  check_dtype("linspace", out.dtype(), true);
  prepare_out("linspace", out, {steps}, dtype, device, requires_grad);
  spaced_fill("linspace", out, start, end, steps, Identity{});
  return out;
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, ScalarType dtype,
                std::optional<Device> device, bool requires_grad) {
  check_requires_grad(requires_grad);
  check_steps(steps);
  ScalarType dt = dtype == ScalarType::Undefined ? spaced_dtype(start, end) : dtype;
  check_dtype("logspace", dt, true);
  Tensor t = ember::empty({steps}, dt, creation_device(device));
  spaced_fill("logspace", t, start, end, steps, PowOfBase{base});
  return t;
}

Tensor logspace_out(const Tensor& out, const Scalar& start, const Scalar& end, int64_t steps, double base,
                    ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  check_steps(steps);
  check_dtype("logspace", out.dtype(), true);
  prepare_out("logspace", out, {steps}, dtype, device, requires_grad);
  spaced_fill("logspace", out, start, end, steps, PowOfBase{base});
  return out;
}

Tensor eye(int64_t n, std::optional<int64_t> m, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  check_requires_grad(requires_grad);
  int64_t cols = m ? *m : n;
  check_eye(n, cols);
  Tensor t = ember::empty({n, cols}, or_default_dtype(dtype), creation_device(device));
  eye_fill(t);
  return t;
}

Tensor eye_out(const Tensor& out, int64_t n, std::optional<int64_t> m, ScalarType dtype, std::optional<Device> device,
               bool requires_grad) {
  int64_t cols = m ? *m : n;
  check_eye(n, cols);
  prepare_out("eye", out, {n, cols}, dtype, device, requires_grad);
  eye_fill(out);
  return out;
}

}  // namespace ember::ops
