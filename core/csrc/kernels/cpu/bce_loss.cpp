// _binary_cross_entropy and its input gradient, with PyTorch's numerics: the logs clamped at -100
// in the loss, and the gradient dividing by max(x (1 - x), 1e-12), so that an input of exactly 0
// or 1 (a saturated float sigmoid) gets a large finite gradient, not the NaN that differentiating
// the clamped logs gives (log's infinite slope times the clamp's zero).
#include "generated/ops/_binary_cross_entropy.h"
#include "generated/ops/_binary_cross_entropy_backward.h"
#include "generated/ops/all.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/div.h"
#include "generated/ops/ge.h"
#include "generated/ops/le.h"
#include "generated/ops/log.h"
#include "generated/ops/log1p.h"
#include "generated/ops/logical_and.h"
#include "generated/ops/mean.h"
#include "generated/ops/mul.h"
#include "generated/ops/neg.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "iter/copy.h"
#include "iter/tensor_iter.h"
#include "kernels/matmul.h"
#include "tensor/factory.h"

namespace ember::ops {

namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };
constexpr double kEpsilon = 1e-12;  // PyTorch's floor for x (1 - x), for every dtype

Tensor num(double v) { return wrapped_scalar(Scalar(v)); }

// 0 <= t <= 1 everywhere (a NaN fails, as in PyTorch).
bool in_unit_interval(const Tensor& t) {
  if (t.numel() == 0 || t.is_meta()) return true;
  const Tensor ok = all(logical_and(ge(t, num(0.0)), le(t, num(1.0))), std::nullopt, false);
  return contiguous(ok).data_as<bool>()[0];
}

// Checks what both ops share; returns weight in input's dtype (undefined when not given).
Tensor check_args(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t reduction, const char* op) {
  EMBER_CHECK(is_floating(input.dtype()), Type, "\"", op, "\" is not implemented for '",
              scalar_type_name(input.dtype()), "'");
  EMBER_CHECK(target.dtype() == input.dtype(), Runtime, "Found dtype ", scalar_type_name(target.dtype()),
              " but expected ", scalar_type_name(input.dtype()));
  EMBER_CHECK(target.sizes() == input.sizes(), Value, op, ": expected target of the input's shape ", input.sizes(),
              ", got ", target.sizes());
  EMBER_CHECK(reduction >= kNone && reduction <= kSum, Value, op, ": reduction must be 0 (none), 1 (mean) or 2 (sum)");
  if (!weight.defined()) return weight;
  EMBER_CHECK(broadcast_shapes(weight.sizes(), input.sizes()) == input.sizes(), Runtime, op, ": weight of shape ",
              weight.sizes(), " does not broadcast to the input's shape ", input.sizes());
  return weight.dtype() == input.dtype() ? weight : contiguous_as(weight, input.dtype());
}

Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == kMean) return mean(loss, std::nullopt, false, ScalarType::Undefined);
  if (reduction == kSum) return sum(loss, std::nullopt, false, ScalarType::Undefined);
  return loss;
}

}  // namespace

Tensor _binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t reduction) {
  const Tensor w = check_args(input, target, weight, reduction, "binary_cross_entropy");
  EMBER_CHECK(in_unit_interval(input), Runtime, "all elements of input should be between 0 and 1");
  EMBER_CHECK(in_unit_interval(target), Runtime, "all elements of target should be between 0 and 1");
  // (t - 1) max(log(1 - x), -100) - t max(log x, -100)
  const Tensor log_x = clamp_min(log(input), num(-100.0));
  const Tensor log_1mx = clamp_min(log1p(neg(input)), num(-100.0));
  Tensor loss = sub(mul(sub(target, num(1.0), Scalar(int64_t(1))), log_1mx), mul(target, log_x), Scalar(int64_t(1)));
  if (w.defined()) loss = mul(loss, w);
  return reduce(loss, reduction);
}

Tensor _binary_cross_entropy_backward(const Tensor& grad_output, const Tensor& input, const Tensor& target,
                                      const Tensor& weight, int64_t reduction) {
  const Tensor w = check_args(input, target, weight, reduction, "binary_cross_entropy_backward");
  EMBER_CHECK(reduction == kNone ? grad_output.sizes() == input.sizes() : grad_output.numel() == 1, Runtime,
              "binary_cross_entropy_backward: grad_output of shape ", grad_output.sizes(), " does not fit the loss");
  // grad (x - t) / max(x (1 - x), eps) * weight, over numel for the mean
  const Tensor one = num(1.0);
  const Tensor denom = clamp_min(mul(sub(one, input, Scalar(int64_t(1))), input), num(kEpsilon));
  Tensor g = grad_output.dtype() == input.dtype() ? grad_output : contiguous_as(grad_output, input.dtype());
  Tensor gi = div(mul(g, sub(input, target, Scalar(int64_t(1)))), denom, std::nullopt);
  if (w.defined()) gi = mul(gi, w);
  if (reduction == kMean) gi = div(gi, num(double(input.numel())), std::nullopt);
  return gi;
}

}  // namespace ember::ops
