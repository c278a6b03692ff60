// Backward helpers of the losses (core/ops/loss.yaml), written with recorded ops so that their own
// derivatives work. binary_cross_entropy's second derivatives are PyTorch's definitions (they add
// eps to x and 1 - x where the first derivative floors x (1 - x) at eps).
#include "autograd/formulas.h"
#include "iter/copy.h"

namespace ember::ad {

namespace {

constexpr double kEpsilon = 1e-12;
constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

// The grad scaled by weight (which takes no gradient; cast to like's dtype) and, for the mean,
// by 1/numel.
Tensor weigh(const Tensor& g, const Tensor& weight, const Tensor& like, int64_t reduction) {
  Tensor r = g;
  if (weight.defined()) r = r * (weight.dtype() == like.dtype() ? weight : contiguous_as(weight, like.dtype()));
  return reduction == kMean ? r / double(like.numel()) : r;
}

}  // namespace

// d loss / d target = -logit(x) grad weight (infinite where x is 0 or 1, as in PyTorch).
Tensor bce_target_grad(const Tensor& grad, const Tensor& input, const Tensor& target, const Tensor& weight,
                       int64_t reduction) {
  return weigh(-logit(input, std::nullopt) * grad, weight, target, reduction);
}

// d gi / d grad_output for gi = grad_output (x - t) / max(x (1 - x), eps): (x - t) / ((x + eps)
// (1 - x + eps)), summed against grad back to grad_output's shape.
Tensor bce_double_grad_output(const Tensor& grad, const Tensor& input, const Tensor& target, const Tensor& weight,
                              int64_t reduction) {
  Tensor g = (input - target) / ((input + kEpsilon) * ((1.0 - input) + kEpsilon)) * grad;
  g = weigh(g, weight, input, kNone);  // the mean's 1/numel comes after the sum
  if (reduction == kMean || reduction == kSum) {
    g = sum(g, std::nullopt, false, ScalarType::Undefined);
    if (reduction == kMean) g = g / double(input.numel());
  }
  return g;
}

// d gi / d x: (x^2 - 2 x t + t) / ((x + eps)^2 (1 - x + eps)^2) grad_output.
Tensor bce_double_grad_input(const Tensor& grad, const Tensor& grad_output, const Tensor& input, const Tensor& target,
                             const Tensor& weight, int64_t reduction) {
  Tensor top = input * input - 2.0 * input * target + target;
  Tensor bottom = square(input + kEpsilon) * square((1.0 - input) + kEpsilon);
  return weigh(top / bottom * grad * grad_output, weight, input, reduction);
}

// d gi / d t: -grad_output / max(x (1 - x), eps). The floor is a constant shift (PyTorch clamps
// in place without recording), so the derivative through x stays that of x (1 - x).
Tensor bce_double_grad_target(const Tensor& grad, const Tensor& grad_output, const Tensor& input, const Tensor& target,
                              const Tensor& weight, int64_t reduction) {
  Tensor d = input * (1.0 - input);
  Tensor floor_shift = ops::sub(ops::clamp_min(d, num(kEpsilon)), d, Scalar(int64_t(1)));
  return weigh(-grad * grad_output / (d + floor_shift), weight, target, reduction);
}

}  // namespace ember::ad
