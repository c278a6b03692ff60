// The RNN-Transducer loss (Graves 2012) as torchaudio's rnnt_loss op computes it: per sequence, the forward
// (alpha) and backward (beta) log-probabilities over the (time, target) lattice give the cost -log P(y|x)
// and, in the same pass, the gradient of that cost with respect to the logits, clamped to [-clamp, clamp]
// when clamp > 0. The op returns (costs, gradients); its backward scales the gradients by the costs'.
// Every input check lives here, so eager and scripted calls raise the same errors.
#include <ember/extension.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace emberaudio {

namespace {

using ember::Tensor;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

int64_t max_of(const Tensor& t) {
  const int32_t* v = t.data_as<int32_t>();
  return t.numel() ? *std::max_element(v, v + t.numel()) : 0;
}

int64_t min_of(const Tensor& t) {
  const int32_t* v = t.data_as<int32_t>();
  return t.numel() ? *std::min_element(v, v + t.numel()) : 0;
}

// Returns the blank index with a negative one counted from the end.
int64_t check_inputs(const Tensor& logits, const Tensor& targets, const Tensor& logit_lengths,
                     const Tensor& target_lengths, int64_t blank) {
  for (const Tensor* t : {&logits, &targets, &logit_lengths, &target_lengths})
    EMBER_CHECK(t->device().type == ember::DeviceType::CPU, Runtime, "rnnt_loss: every input must be a CPU tensor");
  EMBER_CHECK(logits.dtype() == ember::ScalarType::Float32 || logits.dtype() == ember::ScalarType::Float64, Runtime,
              "logits must be float32 or float64 type");
  EMBER_CHECK(targets.dtype() == ember::ScalarType::Int32, Runtime, "targets must be int32 type");
  EMBER_CHECK(logit_lengths.dtype() == ember::ScalarType::Int32, Runtime, "logit_lengths must be int32 type");
  EMBER_CHECK(target_lengths.dtype() == ember::ScalarType::Int32, Runtime, "target_lengths must be int32 type");
  EMBER_CHECK(logits.dim() == 4, Runtime, "logits must be 4-D (batch, time, target, class)");
  EMBER_CHECK(targets.dim() == 2, Runtime, "targets must be 2-D (batch, max target length)");
  EMBER_CHECK(logit_lengths.dim() == 1 && target_lengths.dim() == 1, Runtime,
              "logit_lengths and target_lengths must be 1-D");
  const int64_t batch = logits.size(0), num_classes = logits.size(3);
  EMBER_CHECK(targets.size(0) == batch && logit_lengths.size(0) == batch && target_lengths.size(0) == batch, Runtime,
              "batch dimension mismatch between logits, targets and lengths");
  if (batch > 0) {
    EMBER_CHECK(logits.size(1) == max_of(logit_lengths), Runtime,
                "input length mismatch: logits.size(1) must equal max(logit_lengths)");
    EMBER_CHECK(logits.size(2) == max_of(target_lengths) + 1, Runtime,
                "output length mismatch: logits.size(2) must equal max(target_lengths) + 1");
    EMBER_CHECK(targets.size(1) == max_of(target_lengths), Runtime,
                "target length mismatch: targets.size(1) must equal max(target_lengths)");
  }
  const int64_t index = blank >= 0 ? blank : num_classes + blank;
  EMBER_CHECK(index >= 0 && index < num_classes, Runtime, "blank must be within [0, ", num_classes, "), got ", index);
  EMBER_CHECK(targets.numel() == 0 || (min_of(targets) >= 0 && max_of(targets) < num_classes), Runtime,
              "targets must lie in [0, ", num_classes, ")");
  EMBER_CHECK(batch == 0 || (min_of(logit_lengths) >= 1 && min_of(target_lengths) >= 0), Runtime,
              "logit_lengths must be positive and target_lengths non-negative");
  return index;
}

struct Lattice {
  int64_t max_t, max_u1, classes, blank;
  bool fused;
  double clamp;
};

// One sequence: its logits (max_t, max_u1, classes) and gradient block, t_len frames, u_len targets.
// Returns the cost. The lattice runs in double whatever the logits' dtype.
template <class T>
double one_sequence(const T* x, const int32_t* target, int64_t t_len, int64_t u_len, const Lattice& l, T* grad) {
  const int64_t u1 = u_len + 1, v = l.classes;
  auto at = [&](int64_t t, int64_t u) { return x + (t * l.max_u1 + u) * v; };
  // log-softmax normaliser per node (0 when the logits already are log-probabilities)
  std::vector<double> norm(size_t(t_len * u1), 0.0), lp_blank(norm.size()), lp_emit(norm.size(), kNegInf);
  for (int64_t t = 0; t < t_len; t++)
    for (int64_t u = 0; u < u1; u++) {
      const T* row = at(t, u);
      double n = 0.0;
      if (l.fused) {
        const double hi = double(*std::max_element(row, row + v));
        double sum = 0.0;
        for (int64_t k = 0; k < v; k++) sum += std::exp(double(row[k]) - hi);
        n = hi + std::log(sum);
      }
      const size_t i = size_t(t * u1 + u);
      norm[i] = n;
      lp_blank[i] = double(row[l.blank]) - n;
      if (u < u_len) lp_emit[i] = double(row[target[u]]) - n;
    }
  std::vector<double> alpha(norm.size(), kNegInf), beta(norm.size(), kNegInf);
  for (int64_t t = 0; t < t_len; t++)
    for (int64_t u = 0; u < u1; u++) {
      const size_t i = size_t(t * u1 + u);
      double a = (t == 0 && u == 0) ? 0.0 : kNegInf;
      if (t > 0) a = log_add(a, alpha[i - u1] + lp_blank[i - u1]);
      if (u > 0) a = log_add(a, alpha[i - 1] + lp_emit[i - 1]);
      alpha[i] = a;
    }
  for (int64_t t = t_len - 1; t >= 0; t--)
    for (int64_t u = u1 - 1; u >= 0; u--) {
      const size_t i = size_t(t * u1 + u);
      double b = (t == t_len - 1 && u == u1 - 1) ? lp_blank[i] : kNegInf;
      if (t < t_len - 1) b = log_add(b, beta[i + u1] + lp_blank[i]);
      if (u < u1 - 1) b = log_add(b, beta[i + 1] + lp_emit[i]);
      beta[i] = b;
    }
  const double log_like = beta[0];
  // d cost / d lp at node (t, u): minus the posterior of each outgoing arc (blank down, emission right)
  std::vector<double> g(static_cast<size_t>(v), 0.0);
  for (int64_t t = 0; t < t_len; t++)
    for (int64_t u = 0; u < u1; u++) {
      const size_t i = size_t(t * u1 + u);
      std::fill(g.begin(), g.end(), 0.0);
      const double after_blank = t < t_len - 1 ? beta[i + u1] : (u == u1 - 1 ? 0.0 : kNegInf);
      g[size_t(l.blank)] = -std::exp(alpha[i] + lp_blank[i] + after_blank - log_like);
      if (u < u_len) g[size_t(target[u])] -= std::exp(alpha[i] + lp_emit[i] + beta[i + 1] - log_like);
      const T* row = at(t, u);
      T* out = grad + (row - x);
      double total = 0.0;
      if (l.fused)
        for (int64_t k = 0; k < v; k++) total += g[size_t(k)];
      for (int64_t k = 0; k < v; k++) {
        // through the log-softmax: d/dlogit_k = g_k - softmax_k * sum(g)
        double d = l.fused ? g[size_t(k)] - std::exp(double(row[k]) - norm[i]) * total : g[size_t(k)];
        if (l.clamp > 0) d = std::clamp(d, -l.clamp, l.clamp);
        out[k] = T(d);
      }
    }
  return -log_like;
}

std::tuple<Tensor, Tensor> rnnt_loss(const Tensor& logits_in, const Tensor& targets_in, const Tensor& logit_lengths_in,
                                     const Tensor& target_lengths_in, int64_t blank, double clamp,
                                     bool fused_log_softmax) {
  const Tensor logits = ember::contiguous(logits_in), targets = ember::contiguous(targets_in);
  const Tensor logit_lengths = ember::contiguous(logit_lengths_in);
  const Tensor target_lengths = ember::contiguous(target_lengths_in);
  const int64_t index = check_inputs(logits, targets, logit_lengths, target_lengths, blank);
  const int64_t batch = logits.size(0);
  Tensor costs = ember::empty({batch}, logits.dtype());
  Tensor grads = ember::empty(logits.sizes(), logits.dtype());
  std::memset(grads.data(), 0, size_t(grads.numel() * grads.itemsize()));  // nodes past the lengths take none
  const Lattice l{logits.size(1), logits.size(2), logits.size(3), index, fused_log_softmax, clamp};
  const int32_t* t_lens = logit_lengths.data_as<int32_t>();
  const int32_t* u_lens = target_lengths.data_as<int32_t>();
  const int64_t per_item = l.max_t * l.max_u1 * l.classes, max_u = targets.size(1);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* x = logits.data_as<T>();
    T* g = grads.data_as<T>();
    T* c = costs.data_as<T>();
    ember::parallel_for(batch, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; b++)
        c[b] = T(one_sequence(x + b * per_item, targets.data_as<int32_t>() + b * max_u, t_lens[b], u_lens[b], l,
                              g + b * per_item));
    });
  };
  if (logits.dtype() == ember::ScalarType::Float32)
    run(float(0));
  else
    run(double(0));
  return {costs, grads};
}

// d loss / d logits = gradients * d loss / d cost (per sequence); the other inputs take none.
std::vector<Tensor> rnnt_loss_backward(const ember::BackwardArgs& args) {
  const Tensor& grad_costs = args.grad_outputs[0];
  if (!grad_costs.defined()) return {Tensor(), Tensor(), Tensor(), Tensor()};
  const Tensor& grads = args.outputs[1];
  const Tensor scale = ember::ad::reshape(grad_costs, {grads.size(0), 1, 1, 1});
  return {ember::ad::mul(grads, scale), Tensor(), Tensor(), Tensor()};
}

}  // namespace

}  // namespace emberaudio

EMBER_LIBRARY(audio, m) {
  m.def(
      "rnnt_loss(Tensor logits, Tensor targets, Tensor logit_lengths, Tensor target_lengths, int blank, float clamp, "
      "bool fused_log_softmax=True) -> (Tensor, Tensor)",
      emberaudio::rnnt_loss);
  m.backward("rnnt_loss", emberaudio::rnnt_loss_backward);
}
