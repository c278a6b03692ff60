// Samplers with rejection loops over each element's own stream: _standard_gamma (Marsaglia and
// Tsang's squeeze method, boosted by U^(1/alpha) below alpha = 1) and binomial (waiting times for a
// small mean, Hormann's BTRS transformed rejection otherwise).
#include <cmath>

#include "generated/ops/_standard_gamma.h"
#include "generated/ops/binomial.h"
#include "iter/tensor_iter.h"
#include "kernels/convert.h"
#include "kernels/cpu/random_draw.h"
#include "kernels/cpu/random_fill.h"
#include "kernels/cpu/random_per_element.h"
#include "kernels/layout.h"

namespace ember {

namespace {

double standard_normal(rng::ElementStream& es) {  // Box-Muller, one of the pair
  const double u1 = es.next_open(), u2 = es.next_open();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(rng::kTwoPi * u2);
}

// log of one Gamma(alpha, 1) draw (logs keep alpha << 1 draws, which underflow, meaningful).
double log_gamma_draw(double alpha, rng::ElementStream& es) {
  double log_boost = 0.0;
  if (alpha < 1.0) {  // G(alpha) = G(alpha + 1) * U^(1/alpha)
    log_boost = std::log(es.next_open()) / alpha;
    alpha += 1.0;
  }
  const double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = standard_normal(es);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = es.next_open(), x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2 || std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v)))
      return std::log(d * v) + log_boost;
  }
}

// Number of successes in n Bernoulli(p) trials, p <= 1/2.
double binomial_draw(double n, double p, rng::ElementStream& es) {
  if (n * p < 10.0) {
    // Successes are at geometric gaps: count the gaps that fit in n trials (n p + 1 draws on average).
    const double log_q = std::log1p(-p);
    double trials = 0.0, k = -1.0;
    do {
      trials += std::ceil(std::log(es.next_open()) / log_q);
      k += 1.0;
    } while (trials <= n);
    return k;
  }
  const double q = 1.0 - p, spq = std::sqrt(n * p * q);
  const double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p, c = n * p + 0.5;
  const double alpha = (2.83 + 5.1 / b) * spq, v_r = 0.92 - 4.2 / b, lpq = std::log(p / q);
  const double m = std::floor((n + 1.0) * p);
  const double h = std::lgamma(m + 1.0) + std::lgamma(n - m + 1.0);
  for (;;) {
    const double u = es.next_open() - 0.5, v = es.next_open();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2.0 * a / us + b) * u + c);
    if (k < 0.0 || k > n) continue;
    if (us >= 0.07 && v <= v_r) return k;
    // Exact test against f(k) / f(m).
    const double lhs = std::log(v * alpha / (a / (us * us) + b));
    if (lhs <= h - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + (k - m) * lpq) return k;
  }
}

}  // namespace

namespace ops {

Tensor _standard_gamma(const Tensor& input, GeneratorImpl* generator) {
  rng::check_dtype("_standard_gamma", input.dtype(), rng::kFloat);
  Tensor out = rng::like(input, ScalarType::Undefined, std::nullopt, false);
  GeneratorImpl& g = resolve_generator(generator, input.device());
  if (out.numel() == 0 || out.is_meta()) return out;
  const Tensor conc = rng::as_doubles(input, input.sizes());
  const double* a = conc.data_as<double>();
  for (int64_t i = 0; i < conc.numel(); i++)
    EMBER_CHECK(a[i] > 0 && std::isfinite(a[i]), Runtime,
                "_standard_gamma expects finite, positive concentrations, but found ", a[i]);
  rng::fill_per_element(out, g, [&](int64_t i, rng::ElementStream& es) { return std::exp(log_gamma_draw(a[i], es)); });
  return out;
}

Tensor binomial(const Tensor& count, const Tensor& prob, GeneratorImpl* generator) {
  EMBER_CHECK(is_floating(count.dtype()), Value,
              "binomial only supports floating-point dtypes for count, got: ", dtype_name(count.dtype()));
  EMBER_CHECK(is_floating(prob.dtype()), Value,
              "binomial only supports floating-point dtypes for prob, got: ", dtype_name(prob.dtype()));
  EMBER_CHECK(count.dtype() == prob.dtype(), Runtime, "binomial: count and prob must have the same dtype, got ",
              dtype_name(count.dtype()), " and ", dtype_name(prob.dtype()));
  const DimVec sizes = broadcast_shapes(count.sizes(), prob.sizes());
  Tensor out = ember::empty(sizes, count.dtype(), count.device());
  GeneratorImpl& g = resolve_generator(generator, count.device());
  if (out.numel() == 0 || out.is_meta() || count.is_meta() || prob.is_meta()) return out;
  const Tensor nd = rng::as_doubles(count, sizes), pd = rng::as_doubles(prob, sizes);
  const double *n = nd.data_as<double>(), *p = pd.data_as<double>();
  for (int64_t i = 0; i < nd.numel(); i++) {
    EMBER_CHECK(n[i] >= 0 && std::isfinite(n[i]) && n[i] == std::floor(n[i]), Runtime,
                "binomial expects count to hold non-negative integers, but found ", n[i]);
    EMBER_CHECK(p[i] >= 0 && p[i] <= 1, Runtime, "binomial expects prob to be in [0, 1], but found ", p[i]);
  }
  rng::fill_per_element(out, g, [&](int64_t i, rng::ElementStream& es) {
    if (n[i] == 0 || p[i] == 0) return 0.0;
    if (p[i] == 1) return n[i];
    // Draw for min(p, 1 - p) and reflect.
    return p[i] <= 0.5 ? binomial_draw(n[i], p[i], es) : n[i] - binomial_draw(n[i], 1.0 - p[i], es);
  });
  return out;
}

}  // namespace ops

}  // namespace ember
