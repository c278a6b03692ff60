// multinomial: with replacement by binary search in each row's cumulative weights (one 53-bit uniform
// per sample); without replacement by an exponential race: category j gets key E_j / w_j with
// E_j ~ Exp(1) and the num_samples smallest keys, in increasing order, are the draws. That is exactly
// the law of drawing one at a time and renormalizing (the first key is w_j / sum w with probability
// w_j / sum w, and the race is memoryless), and zero weights are never drawn.
#include <algorithm>
#include <cmath>
#include <limits>

#include "generated/ops/multinomial.h"
#include "iter/copy.h"
#include "kernels/cpu/random_draw.h"
#include "kernels/cpu/random_fill.h"
#include "kernels/layout.h"

namespace ember {

namespace {

struct Plan {
  int64_t rows, cats;
  DimVec out_sizes;
};

Plan check_multinomial(const Tensor& input, int64_t num_samples, bool replacement) {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, Runtime, "multinomial: prob_dist must be 1 or 2 dim, got ",
              input.dim(), " dims");
  EMBER_CHECK(is_floating(input.dtype()), Runtime,
              "multinomial only supports floating-point dtypes for input, got: ", dtype_name(input.dtype()));
  const int64_t cats = input.size(-1), rows = input.dim() == 2 ? input.size(0) : 1;
  EMBER_CHECK(num_samples > 0, Runtime, "multinomial: cannot sample n_sample <= 0 samples (got ", num_samples, ")");
  EMBER_CHECK(replacement || num_samples <= cats, Runtime, "multinomial: cannot sample n_sample > prob_dist.size(-1) ",
              "samples without replacement (n_sample=", num_samples, ", categories=", cats, ")");
  EMBER_CHECK(cats <= (int64_t(1) << 24), Runtime, "multinomial: number of categories cannot exceed 2^24, got ", cats);
  Plan p{rows, cats, {}};
  if (input.dim() == 2)
    p.out_sizes = DimVec{rows, num_samples};
  else
    p.out_sizes = DimVec{num_samples};
  return p;
}

// Weights as doubles, each row checked: finite, >= 0, a positive sum, and (without replacement)
// at least num_samples positive weights.
Tensor checked_weights(const Tensor& input, const Plan& p, int64_t num_samples, bool replacement) {
  Tensor w = rng::as_doubles(input, input.sizes());
  const double* d = w.data_as<double>();
  for (int64_t r = 0; r < p.rows; r++) {
    double sum = 0;
    int64_t positive = 0;
    for (int64_t j = 0; j < p.cats; j++) {
      const double v = d[r * p.cats + j];
      EMBER_CHECK(std::isfinite(v) && v >= 0, Runtime,
                  "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
      sum += v;
      positive += v > 0;
    }
    EMBER_CHECK(sum > 0, Runtime, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    EMBER_CHECK(replacement || positive >= num_samples, Runtime,
                "multinomial: invalid multinomial distribution (with replacement=False, not enough non-negative "
                "category to sample): ",
                positive, " categories have a positive weight, ", num_samples, " samples asked");
  }
  return w;
}

void sample_with_replacement(const double* w, const Plan& p, int64_t ns, int64_t* out, GeneratorImpl& gen) {
  std::vector<double> cdf(size_t(p.rows * p.cats));
  std::vector<int64_t> last(size_t(p.rows));  // the last category with a positive weight
  for (int64_t r = 0; r < p.rows; r++) {
    double acc = 0;
    for (int64_t j = 0; j < p.cats; j++) {
      const double v = w[r * p.cats + j];
      acc += v;
      cdf[size_t(r * p.cats + j)] = acc;
      if (v > 0) last[size_t(r)] = j;
    }
  }
  const rng::Stream s = rng::Stream::reserve(gen, p.rows * ns * 2);
  parallel_for(p.rows * ns, 4096, [&](int64_t b, int64_t e) {
    uint32_t words[rng::kChunk * 2];
    for (int64_t c = b; c < e; c += rng::kChunk) {
      const int64_t m = std::min(rng::kChunk, e - c);
      s.words(2 * c, 2 * m, words);
      for (int64_t k = 0; k < m; k++) {
        const int64_t i = c + k, r = i / ns;
        const double* row = cdf.data() + r * p.cats;
        const double u = rng::u01d(words + 2 * k) * row[p.cats - 1];
        int64_t j = std::upper_bound(row, row + p.cats, u) - row;
        out[i] = std::min(j, last[size_t(r)]);
      }
    }
  });
}

void sample_without_replacement(const double* w, const Plan& p, int64_t ns, int64_t* out, GeneratorImpl& gen) {
  const rng::Stream s = rng::Stream::reserve(gen, p.rows * p.cats * 2);
  parallel_for(p.rows, 1, [&](int64_t b, int64_t e) {
    std::vector<double> keys(size_t(p.cats));
    std::vector<int64_t> idx(size_t(p.cats));
    std::vector<uint32_t> words(size_t(p.cats) * 2);
    for (int64_t r = b; r < e; r++) {
      s.words(2 * r * p.cats, 2 * p.cats, words.data());
      for (int64_t j = 0; j < p.cats; j++) {
        const double v = w[r * p.cats + j];
        keys[size_t(j)] =
            v > 0 ? -std::log(rng::u01d_open(words.data() + 2 * j)) / v : std::numeric_limits<double>::infinity();
        idx[size_t(j)] = j;
      }
      auto less = [&](int64_t a, int64_t c) {
        return keys[size_t(a)] < keys[size_t(c)] || (keys[size_t(a)] == keys[size_t(c)] && a < c);
      };
      std::partial_sort(idx.begin(), idx.begin() + ns, idx.end(), less);
      std::copy(idx.begin(), idx.begin() + ns, out + r * ns);
    }
  });
}

void multinomial_into(const Tensor& out, const Tensor& input, const Plan& p, int64_t ns, bool replacement,
                      GeneratorImpl* generator) {
  GeneratorImpl& g = resolve_generator(generator, input.device());
  if (out.is_meta() || input.is_meta()) return;
  const Tensor w = checked_weights(input, p, ns, replacement);
  Tensor dst = out.is_contiguous() ? out : ember::empty(p.out_sizes, ScalarType::Int64);
  if (replacement)
    sample_with_replacement(w.data_as<double>(), p, ns, dst.data_as<int64_t>(), g);
  else
    sample_without_replacement(w.data_as<double>(), p, ns, dst.data_as<int64_t>(), g);
  if (!dst.is_same(out)) copy_(out, dst);
  out.bump_version();
}

}  // namespace

namespace ops {

Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement, GeneratorImpl* generator) {
  const Plan p = check_multinomial(input, num_samples, replacement);
  Tensor out = ember::empty(p.out_sizes, ScalarType::Int64, input.device());
  multinomial_into(out, input, p, num_samples, replacement, generator);
  return out;
}

Tensor multinomial_out(const Tensor& out, const Tensor& input, int64_t num_samples, bool replacement,
                       GeneratorImpl* generator) {
  const Plan p = check_multinomial(input, num_samples, replacement);
  EMBER_CHECK(out.dtype() == ScalarType::Int64, Runtime, "multinomial expects an int64 out= tensor, got ",
              dtype_name(out.dtype()));
  resize_out(out, p.out_sizes);
  assert_no_internal_overlap(out, "multinomial");
  multinomial_into(out, input, p, num_samples, replacement, generator);
  return out;
}

}  // namespace ops

}  // namespace ember
