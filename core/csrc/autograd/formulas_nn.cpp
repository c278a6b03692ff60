// Backward formulas of the activation functions (core/ops/nn.yaml), written with recorded ops so
// that their second derivatives work too.
#include <cmath>

#include "autograd/formulas.h"
#include "autograd/meta.h"
#include "generated/ops/batch_norm_backward.h"

namespace ember::ad {

Tensor elu_backward(const Tensor& grad, const Tensor& input, double alpha, double scale, double input_scale) {
  return where(gt(input, num(0.0)), grad * scale, grad * exp(input * input_scale) * (alpha * scale * input_scale));
}

Tensor gelu_backward(const Tensor& grad, const Tensor& input, const std::string& approximate) {
  if (approximate == "tanh") {
    // d/dx 0.5 x (1 + tanh(u)), u = k (x + c x^3)
    const double k = std::sqrt(2.0 / M_PI), c = 0.044715;
    Tensor t = tanh((input + input * input * input * c) * k);
    Tensor du = (1.0 + input * input * (3.0 * c)) * k;
    return grad * ((1.0 + t) * 0.5 + input * 0.5 * (1.0 - t * t) * du);
  }
  // Phi(x) + x phi(x)
  Tensor cdf = (1.0 + erf(input * M_SQRT1_2)) * 0.5;
  Tensor pdf = exp(input * input * -0.5) * (0.5 * M_2_SQRTPI * M_SQRT1_2);
  return grad * (cdf + input * pdf);
}

Tensor silu_backward(const Tensor& grad, const Tensor& input) {
  Tensor s = sigmoid(input);
  return grad * s * (1.0 + input * (1.0 - s));
}

Tensor mish_backward(const Tensor& grad, const Tensor& input) {
  Tensor t = tanh(softplus(input, 1.0, 20.0));
  return grad * (t + input * sigmoid(input) * (1.0 - t * t));
}

Tensor softplus_backward(const Tensor& grad, const Tensor& input, double beta, double threshold) {
  return where(gt(input * beta, num(threshold)), grad, grad * sigmoid(input * beta));
}

// PyTorch's pieces at the joints: 0 for x <= -3, grad for x >= 3.
Tensor hardswish_backward(const Tensor& grad, const Tensor& input) {
  Tensor mid = grad * (input / 3.0 + 0.5);
  return where(le(input, num(-3.0)), zeros_of(grad), where(ge(input, num(3.0)), grad, mid));
}

namespace {

// The fused kernel's three gradients from its last call on this thread, with the arguments they came
// from (held, so that no other storage can take their place): the node asks for input's, weight's
// and bias's gradients one after the other, and all three come from one pass over the data.
struct BatchNormGrads {
  Tensor grad, input, weight, save_mean, save_invstd;
  bool training = false;
  std::tuple<Tensor, Tensor, Tensor> result;
  uint32_t grad_version = 0, input_version = 0;  // an in-place change in between invalidates

  bool matches(const Tensor& g, const Tensor& x, const Tensor& w, const Tensor& m, const Tensor& s, bool t) const {
    // The same elements: one storage (kept alive here, so not a new one at its address), offset,
    // sizes, strides and dtype (the saved variables come back as new handles on them).
    auto same = [](const Tensor& a, const Tensor& b) {
      if (a.defined() != b.defined()) return false;
      return !a.defined() || (a.storage().get() == b.storage().get() && a.offset() == b.offset() &&
                              a.sizes() == b.sizes() && a.strides() == b.strides() && a.dtype() == b.dtype());
    };
    return grad.defined() && same(grad, g) && same(input, x) && same(weight, w) && same(save_mean, m) &&
           same(save_invstd, s) && training == t && autograd::current_version(grad) == grad_version &&
           autograd::current_version(input) == input_version;
  }
};

}  // namespace

// native_batch_norm's gradient for input (which 0), weight (1) or bias (2). Without create_graph,
// the fused kernel (run once for the three: the last asked for releases it); with it, the same math
// in recorded ops, the statistics recomputed from input (so second derivatives see how they depend on it).
Tensor batch_norm_grad(const Tensor& grad, const Tensor& input, const Tensor& weight, const Tensor& save_mean,
                       const Tensor& save_invstd, bool training, double eps, int which) {
  if (!GradMode::is_enabled()) {
    thread_local BatchNormGrads last;
    if (!last.matches(grad, input, weight, save_mean, save_invstd, training))
      last = {grad,
              input,
              weight,
              save_mean,
              save_invstd,
              training,
              ops::batch_norm_backward(grad, input, weight, save_mean, save_invstd, training),
              autograd::current_version(grad),
              autograd::current_version(input)};
    Tensor out = which == 0   ? std::get<0>(last.result)
                 : which == 1 ? std::get<1>(last.result)
                              : std::get<2>(last.result);
    if (which == 2) last = BatchNormGrads{};
    return out;
  }
  DimVec dims{0}, shape{1, input.sizes()[1]};
  for (int64_t d = 2; d < input.dim(); d++) {
    dims.push_back(d);
    shape.push_back(1);
  }
  Tensor mean =
      training ? ad::mean(input, dims, true, ScalarType::Undefined) : reshape(autograd::alias(save_mean), shape);
  Tensor invstd = training ? rsqrt(ad::mean(square(input - mean), dims, true, ScalarType::Undefined) + eps)
                           : reshape(autograd::alias(save_invstd), shape);
  Tensor xhat = (input - mean) * invstd;
  if (which == 2) return sum(grad, dims, false, ScalarType::Undefined);
  if (which == 1) return sum(grad * xhat, dims, false, ScalarType::Undefined);
  Tensor scale = weight.defined() ? invstd * reshape(weight, shape) : invstd;
  if (!training) return grad * scale;
  Tensor mg = ad::mean(grad, dims, true, ScalarType::Undefined),
         mgx = ad::mean(grad * xhat, dims, true, ScalarType::Undefined);
  return (grad - mg - xhat * mgx) * scale;
}

// What reaches input through the returned statistics (training only): mean = sum(x)/n, and
// invstd = (var + eps)^-1/2 with d invstd/dx = -invstd^3 (x - mean)/n. Zero gradients (the usual
// case: only the output is used) cost little.
Tensor batch_norm_stats_grad(const Tensor& grad_mean, const Tensor& grad_invstd, const Tensor& input,
                             const Tensor& save_mean, const Tensor& save_invstd, bool training) {
  auto zero = [](const Tensor& t) {
    if (!t.defined()) return true;
    const Tensor nz = ops::any(ops::ne(t, wrapped_scalar(Scalar(0.0))), std::nullopt, false);
    return !*nz.data_as<bool>();
  };
  if (!training) return zeros_of(input);
  // zero grads are skipped only when nothing differentiates this (forward mode sends zeros that are)
  if (!GradMode::is_enabled() && zero(grad_mean) && zero(grad_invstd)) return zeros_of(input);
  DimVec shape{1, input.sizes()[1]};
  for (int64_t d = 2; d < input.dim(); d++) shape.push_back(1);
  const double n = double(input.numel() / input.sizes()[1]);
  Tensor m = reshape(save_mean, shape), is = reshape(save_invstd, shape);
  Tensor out = expand(reshape(grad_mean, shape) / n, input.sizes());
  return out - reshape(grad_invstd, shape) * is * is * is * (input - m) / n;
}

}  // namespace ember::ad
