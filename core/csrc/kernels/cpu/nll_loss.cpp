// _nll_loss and its gradient: one pass over the targets, picking each one's class from the input
// (N, C, inner) viewed contiguously; the weights of the used targets add up to total_weight.
#include "generated/ops/_nll_loss.h"
#include "generated/ops/_nll_loss_backward.h"
#include "iter/copy.h"
#include "kernels/convert.h"
#include "kernels/visit_float.h"
#include "tensor/factory.h"

namespace ember::ops {

namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

// input (N, C, inner) or (C,) with target (N, inner) or ().
struct Shape {
  int64_t n, c, inner;
};

Shape check_args(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t reduction, const char* op) {
  EMBER_CHECK(input.dim() >= 1, Value, op, ": expected input with at least 1 dimension (the classes)");
  EMBER_CHECK(target.dtype() == ScalarType::Int64, Runtime, op, ": expected an int64 target, got ",
              dtype_name(target.dtype()));
  EMBER_CHECK(reduction >= kNone && reduction <= kSum, Value, op, ": reduction must be 0 (none), 1 (mean) or 2 (sum)");
  Shape s{1, input.sizes()[input.dim() >= 2 ? 1 : 0], 1};
  DimVec expected;
  if (input.dim() >= 2) {
    s.n = input.sizes()[0];
    expected.push_back(s.n);
    for (int64_t d = 2; d < input.dim(); d++) {
      s.inner *= input.sizes()[d];
      expected.push_back(input.sizes()[d]);
    }
  }
  EMBER_CHECK(target.sizes() == expected, Value, op, ": expected target of shape ", expected, " for input of shape ",
              input.sizes(), ", got ", target.sizes());
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == s.c), Runtime,
              "weight tensor should be defined either for all ", s.c,
              " classes or no classes but got weight tensor of "
              "shape: ",
              weight.sizes());
  return s;
}

// Calls f(position, n, i, class, weight) for every target not equal to ignore_index, in order;
// a class outside [0, C) raises.
template <class C, class F>
void for_targets(const Shape& s, const int64_t* t, const C* w, int64_t ignore_index, F&& f) {
  for (int64_t n = 0; n < s.n; n++)
    for (int64_t i = 0; i < s.inner; i++) {
      const int64_t pos = n * s.inner + i, cls = t[pos];
      if (cls == ignore_index) continue;
      EMBER_CHECK(cls >= 0 && cls < s.c, Index, "Target ", cls, " is out of bounds (the input has ", s.c, " classes).");
      f(pos, n, i, cls, w ? w[cls] : C(1));
    }
}

// weight as opmath values (empty when undefined).
template <class C>
std::vector<C> weight_values(const Tensor& weight) {
  std::vector<C> w;
  if (!weight.defined()) return w;
  const Tensor d = contiguous_as(weight, ScalarType::Float64);
  for (int64_t i = 0; i < d.numel(); i++) w.push_back(C(d.data_as<double>()[i]));
  return w;
}

}  // namespace

std::tuple<Tensor, Tensor> _nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t reduction,
                                     int64_t ignore_index) {
  const Shape s = check_args(input, target, weight, reduction, "nll_loss");
  const DimVec out_sizes = reduction == kNone ? target.sizes() : DimVec{};
  Tensor out = empty(out_sizes, input.dtype(), input.device()), total = empty({}, input.dtype(), input.device());
  if (input.is_meta()) return {out, total};
  const Tensor x = contiguous(input), t = contiguous(target);
  visit_real_float(input.dtype(), "nll_loss", [&](auto z) {
    using T = decltype(z);
    using C = opmath_t<T>;
    const std::vector<C> w = weight_values<C>(weight);
    const T* px = x.data_as<T>();
    T* po = out.data_as<T>();
    if (reduction == kNone) std::fill(po, po + out.numel(), T(0));
    double sum = 0, wsum = 0;
    for_targets<C>(s, t.data_as<int64_t>(), w.empty() ? nullptr : w.data(), ignore_index,
                   [&](int64_t pos, int64_t n, int64_t i, int64_t cls, C wt) {
                     const C v = -convert<C>(px[(n * s.c + cls) * s.inner + i]) * wt;
                     if (reduction == kNone) po[pos] = convert<T>(v);
                     sum += double(v);
                     wsum += double(wt);
                   });
    if (reduction == kMean)
      po[0] = convert<T>(C(sum / wsum));  // 0 / 0: NaN when every target is ignored
    else if (reduction == kSum)
      po[0] = convert<T>(C(sum));
    total.data_as<T>()[0] = convert<T>(C(wsum));
  });
  return {out, total};
}

Tensor _nll_loss_backward(const Tensor& grad_output, const Tensor& input, const Tensor& target, const Tensor& weight,
                          int64_t reduction, int64_t ignore_index, const Tensor& total_weight) {
  const Shape s = check_args(input, target, weight, reduction, "nll_loss_backward");
  EMBER_CHECK(reduction == kNone ? grad_output.sizes() == target.sizes() : grad_output.numel() == 1, Runtime,
              "nll_loss_backward: grad_output of shape ", grad_output.sizes(), " does not fit the loss");
  EMBER_CHECK(total_weight.numel() == 1, Runtime, "nll_loss_backward: total_weight must hold one value");
  Tensor gi = empty(input.sizes(), input.dtype(), input.device());
  if (input.is_meta()) return gi;
  const Tensor g = contiguous_as(grad_output, input.dtype()), t = contiguous(target);
  visit_real_float(input.dtype(), "nll_loss_backward", [&](auto z) {
    using T = decltype(z);
    using C = opmath_t<T>;
    const std::vector<C> w = weight_values<C>(weight);
    T* pg = gi.data_as<T>();
    std::fill(pg, pg + gi.numel(), T(0));
    const T* go = g.data_as<T>();
    C scale = reduction == kNone ? C(1) : convert<C>(go[0]);
    if (reduction == kMean) scale /= convert<C>(contiguous_as(total_weight, input.dtype()).template data_as<T>()[0]);
    for_targets<C>(s, t.data_as<int64_t>(), w.empty() ? nullptr : w.data(), ignore_index,
                   [&](int64_t pos, int64_t n, int64_t i, int64_t cls, C wt) {
                     const C gv = reduction == kNone ? convert<C>(go[pos]) : scale;
                     pg[(n * s.c + cls) * s.inner + i] = convert<T>(-gv * wt);
                   });
  });
  return gi;
}

}  // namespace ember::ops
