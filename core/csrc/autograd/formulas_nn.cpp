// Backward formulas of the activation functions (core/ops/nn.yaml), written with recorded ops so
// that their second derivatives work too.
#include <cmath>

#include "autograd/formulas.h"

namespace ember::ad {

Tensor threshold_backward(const Tensor& grad, const Tensor& input, double threshold) {
  return where(gt(input, num(threshold)), grad, zeros_of(grad));
}

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

Tensor hardswish_backward(const Tensor& grad, const Tensor& input) {
  Tensor mid = grad * (input / 3.0 + 0.5);
  return where(lt(input, num(-3.0)), zeros_of(grad), where(gt(input, num(3.0)), grad, mid));
}

}  // namespace ember::ad
