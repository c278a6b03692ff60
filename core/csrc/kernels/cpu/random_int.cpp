// Integer sampling: Tensor.random_ (PyTorch's ranges per dtype and its bound adjustments for
// floating dtypes), randint, randint_like, and randperm (Fisher-Yates over one reservation).
#include <cmath>
#include <limits>
#include <numeric>

#include "generated/ops/_randint_high.h"
#include "generated/ops/_randint_like_high.h"
#include "generated/ops/_random_to.h"
#include "generated/ops/randint.h"
#include "generated/ops/randint_like.h"
#include "generated/ops/random_.h"
#include "generated/ops/randperm.h"
#include "kernels/convert.h"
#include "kernels/cpu/random_draw.h"
#include "kernels/cpu/random_fill.h"
#include "kernels/creation_args.h"
#include "kernels/layout.h"

namespace ember {

namespace {

constexpr unsigned kReal = rng::kFloat | rng::kInt | rng::kBool;

// Significand bits (with the implicit one) of a floating dtype.
int digits_of(ScalarType dt) {
  switch (dt) {
    case ScalarType::Float16:
      return 11;
    case ScalarType::BFloat16:
      return 8;
    case ScalarType::Float32:
      return 24;
    default:
      return 53;
  }
}

// v rounded to the floating dtype dt and back; saturates at the int64 range.
int64_t round_trip(ScalarType dt, int64_t v) {
  const double d = visit_dtype(dt, [&](auto z) -> double {
    using T = decltype(z);
    if constexpr (std::is_same_v<T, double>)
      return double(v);
    else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      return double(float(T(float(v))));
    else
      return double(v);
  });
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return int64_t(d);
}

int floor_log2(uint64_t x) {
  int n = 0;
  while (x >>= 1) n++;
  return n;
}

// The smallest `from` whose rounding to dt does not fall below it (PyTorch moves `from` right when
// from + 1 would round below from), and likewise `to` moved left so to - 1 does not round up to to.
int64_t fp_adjust_from(ScalarType dt, int64_t from) {
  const int64_t r = round_trip(dt, from + 1);
  if (r < from) {
    const int n = floor_log2(uint64_t(std::llabs(from + 1)));
    from = r + (int64_t(1) << std::max(0, n - digits_of(dt) + 1));
  }
  return from;
}

int64_t fp_adjust_to(ScalarType dt, int64_t to) {
  const int64_t r = round_trip(dt, to - 1);
  if (r >= to) {
    const int n = floor_log2(uint64_t(std::llabs(to - 1)));
    to = r - (int64_t(1) << std::max(0, n - digits_of(dt) + 1));
  }
  return to;
}

// [lowest, max] of dt as doubles (floating dtypes) or int64 (integral).
void check_in_range(ScalarType dt, int64_t from, int64_t to_inc) {
  if (is_floating(dt)) {
    const double hi = dt == ScalarType::Float16    ? 65504.0
                      : dt == ScalarType::BFloat16 ? 3.3895313892515355e38
                      : dt == ScalarType::Float32  ? double(std::numeric_limits<float>::max())
                                                   : std::numeric_limits<double>::max();
    EMBER_CHECK(double(from) >= -hi && double(from) <= hi, Runtime, "random_: from=", from, " is out of bounds for ",
                dtype_name(dt));
    EMBER_CHECK(double(to_inc) >= -hi && double(to_inc) <= hi, Runtime, "random_: to - 1=", to_inc,
                " is out of bounds for ", dtype_name(dt));
    return;
  }
  const auto [lo, hi] = visit_dtype(dt, [](auto z) -> std::pair<int64_t, int64_t> {
    using T = decltype(z);
    if constexpr (std::is_integral_v<T>)
      return {int64_t(std::numeric_limits<T>::lowest()), int64_t(std::numeric_limits<T>::max())};
    else
      return {0, 0};
  });
  EMBER_CHECK(from >= lo && from <= hi, Runtime, "random_: from=", from, " is out of bounds for ", dtype_name(dt),
              " (whose range is [", lo, ", ", hi, "])");
  EMBER_CHECK(to_inc >= lo && to_inc <= hi, Runtime, "random_: to - 1=", to_inc, " is out of bounds for ",
              dtype_name(dt), " (whose range is [", lo, ", ", hi, "])");
}

// from + (a uniform integer below range; range 0 = 2^64), two words per element.
template <class T>
void int_range_typed(const Tensor& out, int64_t from, uint64_t range, GeneratorImpl& gen) {
  const rng::Stream s = rng::Stream::reserve(gen, out.numel() * 2);
  rng::fill_logical<T>(out, [&](int64_t first, int64_t m, T* dst) {
    uint32_t w[rng::kChunk * 2];
    s.words(first * 2, m * 2, w);
    for (int64_t k = 0; k < m; k++) {
      const int64_t v = int64_t(uint64_t(from) + rng::below(rng::u64(w + 2 * k), range));
      if constexpr (std::is_same_v<T, bool>)
        dst[k] = v != 0;
      else
        dst[k] = convert<T>(v);
    }
  });
}

void fill_int_range(const Tensor& out, int64_t from, uint64_t range, GeneratorImpl& gen) {
  if (out.numel() == 0 || out.is_meta()) return;
  visit_dtype(out.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (is_complex_v<T>)
      EMBER_FAIL(Type, "\"random_\" is not implemented for dtype ", dtype_name(out.dtype()));
    else
      int_range_typed<T>(out, from, range, gen);
  });
  out.bump_version();
}

}  // namespace

namespace rng {

Tensor random_from_to(const Tensor& out, int64_t from, std::optional<int64_t> to, GeneratorImpl* generator) {
  const ScalarType dt = out.dtype();
  check_dtype("random_", dt, kReal);
  assert_no_internal_overlap(out, "random_");
  GeneratorImpl& g = resolve_generator(generator, out.device());
  uint64_t range;
  if (to) {
    int64_t hi = *to;
    EMBER_CHECK(from < hi, Runtime, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", hi);
    if (is_floating(dt)) {
      from = fp_adjust_from(dt, from);
      hi = fp_adjust_to(dt, hi);
      EMBER_CHECK(from < hi, Runtime,
                  "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from=", from,
                  " >= to=", hi);
    }
    check_in_range(dt, from, hi - 1);
    range = uint64_t(hi) - uint64_t(from);
  } else if (from != std::numeric_limits<int64_t>::min()) {
    int64_t to_inc;
    if (is_floating(dt)) {
      to_inc = int64_t(1) << digits_of(dt);
      from = fp_adjust_from(dt, from);
      EMBER_CHECK(from < to_inc, Runtime,
                  "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
                  "to dtype, but got from=",
                  from, " > to_inc=", to_inc);
    } else {
      to_inc = visit_dtype(dt, [](auto z) -> int64_t {
        using T = decltype(z);
        if constexpr (std::is_same_v<T, bool>)
          return 1;
        else if constexpr (std::is_integral_v<T>)
          return int64_t(std::numeric_limits<T>::max());
        else
          return 0;
      });
    }
    check_in_range(dt, from, to_inc);
    range = uint64_t(to_inc) - uint64_t(from) + 1;  // 0 (2^64) only for int64 from = INT64_MIN, excluded here
  } else {
    range = 0;  // [INT64_MIN, INT64_MAX]: every 64-bit value
  }
  fill_int_range(out, from, range, g);
  return out;
}

}  // namespace rng

namespace {

ScalarType randint_dtype(ScalarType dtype) { return dtype == ScalarType::Undefined ? ScalarType::Int64 : dtype; }

Tensor randint_new(int64_t low, int64_t high, const DimVec& size, GeneratorImpl* generator, ScalarType dtype,
                   std::optional<Device> device, bool requires_grad) {
  check_requires_grad(requires_grad);
  Tensor t = ember::empty(size, randint_dtype(dtype), creation_device(device));
  return rng::random_from_to(t, low, high, generator);
}

Tensor randint_into(const Tensor& out, int64_t low, int64_t high, const DimVec& size, GeneratorImpl* generator,
                    ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  prepare_out("randint", out, size, dtype, device, requires_grad);
  return rng::random_from_to(out, low, high, generator);
}

}  // namespace

namespace ops {

Tensor random_(const Tensor& input, int64_t from, std::optional<int64_t> to, GeneratorImpl* generator) {
  return rng::random_from_to(input, from, to, generator);
}

Tensor _random_to(const Tensor& input, int64_t to, GeneratorImpl* generator) {
  return rng::random_from_to(input, 0, to, generator);
}

Tensor randint(int64_t low, int64_t high, const DimVec& size, GeneratorImpl* generator, ScalarType dtype,
               std::optional<Device> device, bool requires_grad) {
  return randint_new(low, high, size, generator, dtype, device, requires_grad);
}

Tensor randint_out(const Tensor& out, int64_t low, int64_t high, const DimVec& size, GeneratorImpl* generator,
                   ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  return randint_into(out, low, high, size, generator, dtype, device, requires_grad);
}

Tensor _randint_high(int64_t high, const DimVec& size, GeneratorImpl* generator, ScalarType dtype,
                     std::optional<Device> device, bool requires_grad) {
  return randint_new(0, high, size, generator, dtype, device, requires_grad);
}

Tensor _randint_high_out(const Tensor& out, int64_t high, const DimVec& size, GeneratorImpl* generator,
                         ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  return randint_into(out, 0, high, size, generator, dtype, device, requires_grad);
}

Tensor randint_like(const Tensor& input, int64_t low, int64_t high, GeneratorImpl* generator, ScalarType dtype,
                    std::optional<Device> device, bool requires_grad) {
  Tensor t = rng::like(input, dtype, device, requires_grad);
  return rng::random_from_to(t, low, high, generator);
}

Tensor _randint_like_high(const Tensor& input, int64_t high, GeneratorImpl* generator, ScalarType dtype,
                          std::optional<Device> device, bool requires_grad) {
  Tensor t = rng::like(input, dtype, device, requires_grad);
  return rng::random_from_to(t, 0, high, generator);
}

}  // namespace ops

namespace {

// n - 1 must be exact in dt (PyTorch's rule), so every index is representable.
void check_randperm(int64_t n, ScalarType dt) {
  EMBER_CHECK(n >= 0, Runtime, "randperm: n must be non-negative, got ", n);
  rng::check_dtype("randperm", dt, rng::kFloat | rng::kInt);
  const int64_t last = n > 0 ? n - 1 : 0;
  if (is_floating(dt)) {
    EMBER_CHECK(last <= (int64_t(1) << digits_of(dt)), Runtime, "randperm: n cannot be greater than 2^", digits_of(dt),
                "+1 for ", dtype_name(dt), ", got ", n);
  } else {
    const int64_t hi = visit_dtype(dt, [](auto z) -> int64_t {
      using T = decltype(z);
      if constexpr (std::is_integral_v<T>)
        return int64_t(std::numeric_limits<T>::max());
      else
        return 0;
    });
    EMBER_CHECK(last <= hi, Runtime, "randperm: n is too large for result tensor type: '", dtype_name(dt),
                "', got n=", n);
  }
}

// Fisher-Yates: step i (from n-1 down to 1) swaps position i with one uniform in [0, i], drawn from
// words [2k, 2k + 2) of the reservation for k = n - 1 - i. Sequential, so thread-count free.
void randperm_fill(const Tensor& out, int64_t n, GeneratorImpl& gen) {
  if (out.is_meta() || n == 0) return;
  std::vector<int64_t> perm(size_t(n), 0);
  std::iota(perm.begin(), perm.end(), int64_t(0));
  const rng::Stream s = rng::Stream::reserve(gen, (n - 1) * 2);
  uint32_t w[rng::kChunk * 2];
  for (int64_t k0 = 0; k0 < n - 1; k0 += rng::kChunk) {
    const int64_t m = std::min(rng::kChunk, n - 1 - k0);
    s.words(2 * k0, 2 * m, w);
    for (int64_t k = 0; k < m; k++) {
      const int64_t i = n - 1 - (k0 + k);
      const int64_t j = int64_t(rng::below(rng::u64(w + 2 * k), uint64_t(i) + 1));
      std::swap(perm[size_t(i)], perm[size_t(j)]);
    }
  }
  visit_dtype(out.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) {
      rng::fill_logical<T>(out, [&](int64_t first, int64_t m, T* dst) {
        for (int64_t k = 0; k < m; k++) dst[k] = convert<T>(perm[size_t(first + k)]);
      });
    }
  });
  out.bump_version();
}

}  // namespace

namespace ops {

Tensor randperm(int64_t n, GeneratorImpl* generator, ScalarType dtype, std::optional<Device> device,
                bool requires_grad) {
  check_requires_grad(requires_grad);
  const ScalarType dt = randint_dtype(dtype);
  check_randperm(n, dt);
  const Device dev = creation_device(device);
  Tensor t = ember::empty(DimVec{n}, dt, dev);
  randperm_fill(t, n, resolve_generator(generator, dev));
  return t;
}

Tensor randperm_out(const Tensor& out, int64_t n, GeneratorImpl* generator, ScalarType dtype,
                    std::optional<Device> device, bool requires_grad) {
  check_randperm(n, out.dtype());
  prepare_out("randperm", out, DimVec{n}, dtype, device, requires_grad);
  randperm_fill(out, n, resolve_generator(generator, out.device()));
  return out;
}

}  // namespace ops

}  // namespace ember
