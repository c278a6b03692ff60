// Uniform sampling: rand, rand_like, Tensor.uniform_, and the helpers of random_fill.h every random
// op uses (dtype checks, *_like outputs, float64 copies of parameter tensors).
#include <cmath>
#include <limits>

#include "generated/ops/expand.h"
#include "generated/ops/rand.h"
#include "generated/ops/rand_like.h"
#include "generated/ops/uniform_.h"
#include "iter/copy.h"
#include "kernels/cpu/random_draw.h"
#include "kernels/cpu/random_fill.h"
#include "kernels/creation_args.h"
#include "kernels/layout.h"

namespace ember {

namespace rng {

void check_dtype(const char* op, ScalarType dt, unsigned kinds) {
  const bool ok = (is_floating(dt) && (kinds & kFloat)) || (is_complex(dt) && (kinds & kComplex)) ||
                  (is_integral(dt, false) && (kinds & kInt)) || (dt == ScalarType::Bool && (kinds & kBool));
  EMBER_CHECK(ok, Type, "\"", op, "\" is not implemented for dtype ", dtype_name(dt));
}

Tensor like(const Tensor& input, ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  check_requires_grad(requires_grad);
  const ScalarType dt = dtype == ScalarType::Undefined ? input.dtype() : dtype;
  const Device dev = creation_device(device, input.device());
  if (dev.type != input.device().type || input.is_contiguous()) return ember::empty(input.sizes(), dt, dev);
  return empty_preserve(input, dt);
}

Tensor standard_new(const char* op, StandardFill fill, const DimVec& size, GeneratorImpl* generator, ScalarType dtype,
                    std::optional<Device> device, bool requires_grad) {
  check_requires_grad(requires_grad);
  const ScalarType dt = or_default_dtype(dtype);
  check_dtype(op, dt, kFloat | kComplex);
  const Device dev = creation_device(device);
  Tensor t = ember::empty(size, dt, dev);
  fill(t, resolve_generator(generator, dev));
  return t;
}

Tensor standard_out(const char* op, StandardFill fill, const Tensor& out, const DimVec& size, GeneratorImpl* generator,
                    ScalarType dtype, std::optional<Device> device, bool requires_grad) {
  check_dtype(op, out.dtype(), kFloat | kComplex);
  prepare_out(op, out, size, dtype, device, requires_grad);
  fill(out, resolve_generator(generator, out.device()));
  return out;
}

Tensor standard_like(const char* op, StandardFill fill, const Tensor& input, GeneratorImpl* generator, ScalarType dtype,
                     std::optional<Device> device, bool requires_grad) {
  Tensor t = like(input, dtype, device, requires_grad);
  check_dtype(op, t.dtype(), kFloat | kComplex);
  fill(t, resolve_generator(generator, t.device()));
  return t;
}

Tensor as_doubles(const Tensor& t, const DimVec& sizes) {
  Tensor b = t.sizes() == sizes ? t : ops::expand(t, sizes);
  // always a copy: bernoulli_ writes its input while reading these, and the two may overlap
  return to_dtype(contiguous(b), ScalarType::Float64);
}

namespace {

// Values u * span + lo for u uniform on [0, 1) with as many random bits as T's significand holds
// (so rand() never rounds up to 1): 11 for float16, 8 for bfloat16, 24 for float, 53 for double.
template <class T>
void uniform_typed(const Tensor& out, double from, double to, GeneratorImpl& gen) {
  constexpr int W = std::is_same_v<T, double> ? 2 : 1;  // words per element
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const C lo = C(from), span = C(to - from);
  const Stream s = Stream::reserve(gen, out.numel() * W);
  fill_logical<T>(out, [&](int64_t first, int64_t m, T* dst) {
    uint32_t w[kChunk * W];
    s.words(first * W, m * W, w);
    if constexpr (std::is_same_v<T, double>) {
      for (int64_t k = 0; k < m; k++) dst[k] = lo + span * u01d(w + 2 * k);
    } else if constexpr (std::is_same_v<T, float>) {
      for (int64_t k = 0; k < m; k++) dst[k] = lo + span * (float(int32_t(w[k] >> 8)) * 0x1.0p-24f);
    } else {
      constexpr int bits = std::is_same_v<T, Half> ? 11 : 8;
      constexpr float scale = 1.0f / float(1 << bits);
      for (int64_t k = 0; k < m; k++) dst[k] = T(lo + span * (float(int32_t(w[k] >> (32 - bits))) * scale));
    }
  });
}

}  // namespace

void fill_uniform(const Tensor& out, double from, double to, GeneratorImpl& gen) {
  if (out.numel() == 0 || out.is_meta()) return;
  const Tensor r = real_view(out);
  switch (r.dtype()) {
    case ScalarType::Float16:
      uniform_typed<Half>(r, from, to, gen);
      break;
    case ScalarType::BFloat16:
      uniform_typed<BFloat16>(r, from, to, gen);
      break;
    case ScalarType::Float32:
      uniform_typed<float>(r, from, to, gen);
      break;
    case ScalarType::Float64:
      uniform_typed<double>(r, from, to, gen);
      break;
    default:
      EMBER_FAIL(Type, "\"uniform_\" is not implemented for dtype ", dtype_name(out.dtype()));
  }
  out.bump_version();
}

}  // namespace rng

namespace {

template <class T>
std::pair<double, double> limits_of() {
  return {double(std::numeric_limits<T>::lowest()), double(std::numeric_limits<T>::max())};
}

// PyTorch's checks of uniform_: both bounds inside the dtype's range, from <= to, and to - from finite.
void check_uniform_bounds(ScalarType dt, double from, double to) {
  const ScalarType r = to_real(dt);
  const auto [lo, hi] = r == ScalarType::Float16 ? std::pair<double, double>{-65504.0, 65504.0}
                        : r == ScalarType::BFloat16
                            ? std::pair<double, double>{-3.3895313892515355e38, 3.3895313892515355e38}
                        : r == ScalarType::Float32 ? limits_of<float>()
                                                   : limits_of<double>();
  EMBER_CHECK(from >= lo && from <= hi, Runtime, "uniform_: from=", from, " is out of bounds for ", dtype_name(dt));
  EMBER_CHECK(to >= lo && to <= hi, Runtime, "uniform_: to=", to, " is out of bounds for ", dtype_name(dt));
  EMBER_CHECK(from <= to, Runtime, "uniform_ expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  EMBER_CHECK(to - from <= hi, Runtime, "uniform_ expects to-from <= the largest ", dtype_name(r),
              ", but found to=", to, " and from=", from, " which result in to-from to exceed the limit");
}

constexpr unsigned kFloatComplex = rng::kFloat | rng::kComplex;

// U[0, 1)
void fill_standard_uniform(const Tensor& out, GeneratorImpl& gen) { rng::fill_uniform(out, 0.0, 1.0, gen); }

}  // namespace

namespace ops {

Tensor rand(const DimVec& size, GeneratorImpl* generator, ScalarType dtype, std::optional<Device> device,
            bool requires_grad) {
  return rng::standard_new("rand", fill_standard_uniform, size, generator, dtype, device, requires_grad);
}

Tensor rand_out(const Tensor& out, const DimVec& size, GeneratorImpl* generator, ScalarType dtype,
                std::optional<Device> device, bool requires_grad) {
  return rng::standard_out("rand", fill_standard_uniform, out, size, generator, dtype, device, requires_grad);
}

Tensor rand_like(const Tensor& input, GeneratorImpl* generator, ScalarType dtype, std::optional<Device> device,
                 bool requires_grad) {
  return rng::standard_like("rand_like", fill_standard_uniform, input, generator, dtype, device, requires_grad);
}

Tensor uniform_(const Tensor& input, double from, double to, GeneratorImpl* generator) {
  rng::check_dtype("uniform_", input.dtype(), kFloatComplex);
  check_uniform_bounds(input.dtype(), from, to);
  assert_no_internal_overlap(input, "uniform_");
  GeneratorImpl& g = resolve_generator(generator, input.device());
  if (input.numel() == 0 || input.is_meta()) return input;
  rng::fill_uniform(input, from, to, g);
  return input;
}

}  // namespace ops

}  // namespace ember
