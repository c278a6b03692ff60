// Samplers by inversion of one uniform per element (Tensor.exponential_, geometric_, cauchy_), the
// Bernoulli samplers (bernoulli, Tensor.bernoulli_) and poisson (inversion, or PTRS for rates >= 10).
#include <cmath>

#include "generated/ops/bernoulli.h"
#include "generated/ops/bernoulli_.h"
#include "generated/ops/cauchy_.h"
#include "generated/ops/exponential_.h"
#include "generated/ops/geometric_.h"
#include "generated/ops/poisson.h"
#include "iter/tensor_iter.h"
#include "kernels/convert.h"
#include "kernels/cpu/random_draw.h"
#include "kernels/cpu/random_fill.h"
#include "kernels/cpu/random_per_element.h"
#include "kernels/layout.h"

namespace ember {

namespace {

// out[i] = f(u_i) for u_i uniform on (0, 1): 24-bit uniforms and float math for float32 and the
// 16-bit floats, 53-bit uniforms and double math for float64 and integer outputs.
template <class F>
void fill_from_open_uniform(const char* op, const Tensor& out, GeneratorImpl& gen, const F& f) {
  if (out.numel() == 0 || out.is_meta()) return;
  visit_dtype(out.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (is_complex_v<T> || std::is_same_v<T, bool>) {
      EMBER_FAIL(Type, "\"", op, "\" is not implemented for dtype ", dtype_name(out.dtype()));
    } else {
      constexpr bool wide = std::is_same_v<T, double> || std::is_integral_v<T>;
      constexpr int W = wide ? 2 : 1;
      const rng::Stream s = rng::Stream::reserve(gen, out.numel() * W);
      rng::fill_logical<T>(out, [&](int64_t first, int64_t m, T* dst) {
        uint32_t w[rng::kChunk * W];
        s.words(first * W, m * W, w);
        for (int64_t k = 0; k < m; k++) {
          if constexpr (wide)
            dst[k] = convert<T>(f(rng::u01d_open(w + 2 * k)));
          else
            dst[k] = T(f(rng::u01f_open(w[k])));
        }
      });
    }
  });
  out.bump_version();
}

}  // namespace

namespace ops {

Tensor exponential_(const Tensor& input, double lambd, GeneratorImpl* generator) {
  rng::check_dtype("exponential_", input.dtype(), rng::kFloat);
  EMBER_CHECK(lambd > 0.0, Runtime, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  assert_no_internal_overlap(input, "exponential_");
  GeneratorImpl& g = resolve_generator(generator, input.device());
  const double inv = 1.0 / lambd;
  const float invf = float(inv);
  // -log(u) for u in (0, 1) is never 0, so the result is strictly positive (as PyTorch guarantees).
  fill_from_open_uniform("exponential_", input, g, [&](auto u) {
    using C = decltype(u);
    return -std::log(u) * (std::is_same_v<C, double> ? C(inv) : C(invf));
  });
  return input;
}

Tensor geometric_(const Tensor& input, double p, GeneratorImpl* generator) {
  rng::check_dtype("geometric_", input.dtype(), rng::kFloat | rng::kInt);
  EMBER_CHECK(0 < p && p < 1, Runtime, "geometric_ expects p to be in (0, 1), but got p=", p);
  assert_no_internal_overlap(input, "geometric_");
  GeneratorImpl& g = resolve_generator(generator, input.device());
  const double denom = std::log1p(-p);
  fill_from_open_uniform("geometric_", input, g, [&](auto u) {
    using C = decltype(u);
    return std::ceil(std::log(u) / C(denom));
  });
  return input;
}

Tensor cauchy_(const Tensor& input, double median, double sigma, GeneratorImpl* generator) {
  rng::check_dtype("cauchy_", input.dtype(), rng::kFloat);
  EMBER_CHECK(sigma > 0.0, Runtime, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  assert_no_internal_overlap(input, "cauchy_");
  GeneratorImpl& g = resolve_generator(generator, input.device());
  fill_from_open_uniform("cauchy_", input, g, [&](auto u) {
    using C = decltype(u);
    return C(median) + C(sigma) * std::tan(C(M_PI) * (u - C(0.5)));
  });
  return input;
}

}  // namespace ops

namespace {

// out[i] = (u_i < p_i) with 53-bit uniforms; p is a scalar (probs == nullptr) or row-major doubles.
void bernoulli_fill(const Tensor& out, double p, const double* probs, GeneratorImpl& gen) {
  if (out.numel() == 0 || out.is_meta()) return;
  const rng::Stream s = rng::Stream::reserve(gen, out.numel() * 2);
  visit_dtype(out.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (is_complex_v<T>) {
      EMBER_FAIL(Type, "\"bernoulli_\" is not implemented for dtype ", dtype_name(out.dtype()));
    } else {
      rng::fill_logical<T>(out, [&](int64_t first, int64_t m, T* dst) {
        uint32_t w[rng::kChunk * 2];
        s.words(first * 2, m * 2, w);
        for (int64_t k = 0; k < m; k++) {
          const double pk = probs ? probs[first + k] : p;
          dst[k] = convert<T>(rng::u01d(w + 2 * k) < pk);
        }
      });
    }
  });
  out.bump_version();
}

std::string shape_str(const DimVec& s) {
  std::string out = "[";
  for (int64_t i = 0; i < int64_t(s.size()); i++) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

void check_scalar_p(double p) {
  EMBER_CHECK(0 <= p && p <= 1, Runtime, "bernoulli_ expects p to be in [0, 1], but got p=", p);
}

// Probabilities from a tensor: real, broadcast to `sizes`, every element in [0, 1].
Tensor probs_of(const Tensor& p, const DimVec& sizes) {
  EMBER_CHECK(!is_complex(p.dtype()), Type, "bernoulli: expected real probabilities, got a ", dtype_name(p.dtype()),
              " tensor");
  Tensor d = rng::as_doubles(p, sizes);
  const double* q = d.data_as<double>();
  for (int64_t i = 0; i < d.numel(); i++)
    EMBER_CHECK(q[i] >= 0 && q[i] <= 1, Runtime, "bernoulli expects all elements of p to be in [0, 1], but found ",
                q[i]);
  return d;
}

void bernoulli_into(const Tensor& out, const Tensor& input, std::optional<double> p, GeneratorImpl* generator) {
  GeneratorImpl& g = resolve_generator(generator, out.device());
  if (p) {
    check_scalar_p(*p);
    bernoulli_fill(out, *p, nullptr, g);
    return;
  }
  if (out.is_meta() || input.is_meta()) return;
  const Tensor probs = probs_of(input, out.sizes());
  bernoulli_fill(out, 0.0, probs.data_as<double>(), g);
}

void check_bernoulli_input(const Tensor& input, std::optional<double> p) {
  if (p)
    rng::check_dtype("bernoulli", input.dtype(), rng::kFloat | rng::kInt | rng::kBool);
  else
    rng::check_dtype("bernoulli", input.dtype(), rng::kFloat);
}

}  // namespace

namespace ops {

Tensor bernoulli_(const Tensor& input, const Tensor& p, GeneratorImpl* generator) {
  rng::check_dtype("bernoulli_", input.dtype(), rng::kFloat | rng::kInt | rng::kBool);
  assert_no_internal_overlap(input, "bernoulli_");
  GeneratorImpl& g = resolve_generator(generator, input.device());
  if (p.is_wrapped_number()) {
    const double pv = double(*rng::as_doubles(p, p.sizes()).data_as<double>());
    check_scalar_p(pv);
    bernoulli_fill(input, pv, nullptr, g);
    return input;
  }
  EMBER_CHECK(broadcast_shapes(input.sizes(), p.sizes()) == input.sizes(), Runtime, "bernoulli_: p of shape ",
              shape_str(p.sizes()), " cannot be broadcast to the shape of the tensor ", shape_str(input.sizes()));
  if (input.is_meta() || p.is_meta()) return input;
  const Tensor probs = probs_of(p, input.sizes());
  bernoulli_fill(input, 0.0, probs.data_as<double>(), g);
  return input;
}

Tensor bernoulli(const Tensor& input, std::optional<double> p, GeneratorImpl* generator) {
  check_bernoulli_input(input, p);
  Tensor out = rng::like(input, ScalarType::Undefined, std::nullopt, false);
  bernoulli_into(out, input, p, generator);
  return out;
}

Tensor bernoulli_out(const Tensor& out, const Tensor& input, std::optional<double> p, GeneratorImpl* generator) {
  check_bernoulli_input(input, p);
  rng::check_dtype("bernoulli", out.dtype(), rng::kFloat | rng::kInt | rng::kBool);
  resize_out(out, input.sizes());
  assert_no_internal_overlap(out, "bernoulli");
  bernoulli_into(out, input, p, generator);
  return out;
}

}  // namespace ops

namespace {

// One Poisson(lam) draw from element i's own stream. Below 10: inversion (walk the CDF from 0). From
// 10 on: Hormann's transformed rejection with squeeze (PTRS, 1993), about 1.1 tries per draw.
double poisson_draw(double lam, rng::ElementStream& es) {
  if (lam == 0) return 0;
  if (lam < 10) {
    const double u = es.next_open();
    double p = std::exp(-lam), cdf = p;
    int64_t k = 0;
    while (u > cdf && k < 1000) {
      k++;
      p *= lam / double(k);
      cdf += p;
    }
    return double(k);
  }
  const double slam = std::sqrt(lam), loglam = std::log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = es.next_open() - 0.5, v = es.next_open();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    int sign;
    const double lg = lgamma_r(k + 1, &sign);
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <= -lam + k * loglam - lg) return k;
  }
}

}  // namespace

namespace ops {

Tensor poisson(const Tensor& input, GeneratorImpl* generator) {
  rng::check_dtype("poisson", input.dtype(), rng::kFloat);
  Tensor out = rng::like(input, ScalarType::Undefined, std::nullopt, false);
  GeneratorImpl& g = resolve_generator(generator, input.device());
  if (out.numel() == 0 || out.is_meta()) return out;
  const Tensor rates = rng::as_doubles(input, input.sizes());
  const double* r = rates.data_as<double>();
  for (int64_t i = 0; i < rates.numel(); i++)
    EMBER_CHECK(r[i] >= 0 && std::isfinite(r[i]), Runtime, "poisson expects finite, non-negative rates, but found ",
                r[i]);
  rng::fill_per_element(out, g, [&](int64_t i, rng::ElementStream& es) { return poisson_draw(r[i], es); });
  return out;
}

}  // namespace ops

}  // namespace ember
