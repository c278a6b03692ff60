// Scalar math of the activation functions (core/ops/nn.yaml), over the compute type C (float for
// the 16-bit floats). NaN passes through every one of them, as in PyTorch.
#pragma once
#include <cmath>
#include <string>

#include "base/error.h"

namespace ember::fn {

template <class T>
inline T relu(T x) {
  return x > T(0) || x != x ? x : T(0);
}
template <class T>
inline T leaky_relu(T x, T slope) {
  return x > T(0) ? x : x * slope;
}
template <class T>
inline T elu(T x, T alpha, T scale, T input_scale) {
  return x > T(0) ? scale * x : scale * alpha * std::expm1(x * input_scale);
}
template <class T>
inline T celu(T x, T alpha) {
  return x > T(0) ? x : alpha * std::expm1(x / alpha);
}
// gelu's approximate= option, checked once per call.
inline bool gelu_is_tanh(const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh", Value,
              "approximate argument must be either none or tanh, got '", approximate, "'");
  return approximate == "tanh";
}
template <class T>
inline T gelu(T x, bool tanh_approx) {
  if (tanh_approx) {
    const T k = T(0.7978845608028654);  // sqrt(2 / pi)
    return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
  }
  return T(0.5) * x * (T(1) + std::erf(x * T(0.7071067811865476)));
}
template <class T>
inline T silu(T x) {
  return x / (T(1) + std::exp(-x));
}
template <class T>
inline T softplus(T x, T beta, T threshold) {
  return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
}
template <class T>
inline T mish(T x) {
  return x * std::tanh(softplus(x, T(1), T(20)));
}
template <class T>
inline T softsign(T x) {
  return x / (T(1) + std::fabs(x));
}
template <class T>
inline T hardtanh(T x, T lo, T hi) {
  return x != x ? x : x < lo ? lo : x > hi ? hi : x;
}
template <class T>
inline T hardsigmoid(T x) {
  return hardtanh(x / T(6) + T(0.5), T(0), T(1));
}
template <class T>
inline T hardswish(T x) {
  return x * hardtanh(x + T(3), T(0), T(6)) / T(6);
}
template <class T>
inline T logsigmoid(T x) {
  return std::fmin(x, T(0)) - std::log1p(std::exp(-std::fabs(x)));
}
template <class T>
inline T threshold(T x, T th, T value) {
  return x > th || x != x ? x : value;
}
// PyTorch's test (x <= th zeroes), so a NaN x lets the gradient through
template <class T>
inline T threshold_backward(T grad, T x, T th) {
  return x <= th ? T(0) : grad;
}
template <class T>
inline T softshrink(T x, T l) {
  return x > l ? x - l : x < -l ? x + l : x != x ? x : T(0);
}
template <class T>
inline T hardshrink(T x, T l) {
  return x > l || x < -l || x != x ? x : T(0);
}

}  // namespace ember::fn
