// Gradients of the reductions and scans that formulas.cpp leaves out: nanmean, logcumsumexp,
// msort, and quantile/nanquantile (a gradient only to the one or two order statistics each
// quantile interpolates between).
#include <cmath>

#include "autograd/formulas.h"

namespace ember::ad {

namespace {

DimVec dims_after_first(int64_t ndim) {
  DimVec d;
  for (int64_t i = 1; i < ndim; i++) d.push_back(i);
  return d;
}

}  // namespace

Tensor nanmean_backward(const Tensor& grad, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim) {
  Tensor nan = ops::isnan(input);
  Tensor count = ops::sum(ops::logical_not(nan), dim, true, grad.dtype());
  Tensor g = expand_reduced(grad, input.sizes(), dim, keepdim) / expand(count, input.sizes());
  return where(nan, zeros_of(g), g);
}

// d result_j / d x_i = exp(x_i - result_j) for i <= j, so grad_x_i = sum_{j >= i} grad_j
// exp(x_i - result_j). Summed in log space (positive and negative grads apart) so nothing
// overflows: exp(x_i + rev_logcumsumexp(log|grad_j| - result_j)).
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& input, const Tensor& result, int64_t dim) {
  if (input.dim() == 0) return grad;
  const int64_t d = wrap_dim(dim, input.dim());
  auto reversed = [&](const Tensor& t) { return flip(logcumsumexp(flip(t, {d}), d), {d}); };
  Tensor none = full_like(grad, Scalar(-INFINITY), ScalarType::Undefined, std::nullopt, false);
  Tensor one = num(1.0);
  // A result of -inf (every element so far -inf) takes no gradient: its terms are exp(-inf) = 0.
  Tensor live = ops::ne(result, wrapped_scalar(Scalar(-INFINITY)));
  auto log_part = [&](const Tensor& mask, const Tensor& magnitude) {
    return where(mask, log(where(mask, magnitude, one)) - where(live, result, zeros_of(result)), none);
  };
  Tensor pos = logical_and(gt(grad, num(0.0)), live), neg = logical_and(lt(grad, num(0.0)), live);
  return exp(input + reversed(log_part(pos, grad))) - exp(input + reversed(log_part(neg, -grad)));
}

// msort sorts along dim 0: grad goes back to where each sorted element came from.
Tensor msort_backward(const Tensor& grad, const Tensor& input) {
  if (input.dim() == 0) return grad;
  return scatter(zeros_of(grad), 0, ops::argsort(input, 0, false, true), grad, std::nullopt);
}

namespace {

// Where each quantile of each slice (dim moved last, or the whole tensor flattened) reads: the
// sorted elements lo and hi, weighted w_lo and w_hi, for q as [Q, 1, ..., 1] against the slices
// [..., 1]; lead is the gradient's shape in that layout.
struct QuantileReads {
  Tensor x, order, i_lo, i_hi, w_lo, w_hi, slope;  // slope: d result / d q (linear only)
  DimVec lead;
};

QuantileReads quantile_reads(const Tensor& input, const Tensor& q, std::optional<int64_t> dim,
                             const std::string& interpolation, bool ignore_nan) {
  const ScalarType dt = input.dtype();
  QuantileReads r;
  r.x = dim ? ops::movedim(input, {*dim}, {-1}) : ops::reshape(input, {-1});
  if (r.x.dim() == 0) r.x = ops::reshape(r.x, {1});
  r.order = std::get<1>(ops::sort(r.x, -1, false, true));  // NaN sorts last
  const int64_t n_all = r.x.sizes()[r.x.dim() - 1];
  DimVec q_shape(r.x.dim(), 1);
  if (q.dim() == 1) q_shape.insert(0, q.numel());
  // Recorded where the weights depend on q, so that gradients of the gradient reach q.
  Tensor qv = reshape(_to_copy(q, dt, std::nullopt), q_shape);
  Tensor n_minus_1, has;  // has: whether a nanquantile slice has any element to send the gradient to
  if (ignore_nan) {
    Tensor n = ops::sum(ops::logical_not(ops::isnan(r.x)), DimVec{-1}, true, dt);
    n_minus_1 = ops::sub(n, wrapped_scalar(Scalar(1.0)), Scalar(int64_t(1)));
    has = ops::gt(n, wrapped_scalar(Scalar(0.0)));
  } else {
    n_minus_1 = ops::full_like(qv, Scalar(double(n_all - 1)), dt, std::nullopt, false);
  }
  Tensor pos = qv * n_minus_1;
  Tensor lo = ops::floor(pos), hi = ops::ceil(pos);
  Tensor zero = ops::zeros_like(pos, dt, std::nullopt, false);
  r.w_hi = pos - lo;
  r.slope = zero;
  if (interpolation == "linear") {
    r.slope = n_minus_1;
  } else if (interpolation == "lower") {
    r.w_hi = zero;
  } else if (interpolation == "higher") {
    r.w_hi = ops::ones_like(pos, dt, std::nullopt, false);
  } else if (interpolation == "midpoint") {
    r.w_hi = ops::full_like(pos, Scalar(0.5), dt, std::nullopt, false);
  } else if (interpolation == "nearest") {
    lo = hi = ops::round(pos, 0);
    r.w_hi = zero;
  } else {
    EMBER_FAIL(Runtime, "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. Got ",
               interpolation);
  }
  r.w_lo = 1.0 - r.w_hi;
  if (has.defined()) {
    r.w_lo = where(has, r.w_lo, zero);
    r.w_hi = where(has, r.w_hi, zero);
    r.slope = ops::where(has, r.slope, zero);
  }
  r.lead = r.x.sizes();
  r.lead[r.lead.size() - 1] = 1;
  if (q.dim() == 1) r.lead.insert(0, q.numel());
  auto index = [&](const Tensor& p) {
    Tensor i =
        ops::clamp(p, wrapped_scalar(Scalar(0.0)), wrapped_scalar(Scalar(double(std::max<int64_t>(n_all - 1, 0)))));
    return ops::expand(ops::_to_copy(i, ScalarType::Int64, std::nullopt), r.lead);
  };
  r.i_lo = index(lo);
  r.i_hi = index(hi);
  return r;
}

}  // namespace

// The gradient goes to the two sorted elements each quantile interpolates, then back through the sort.
Tensor quantile_backward(const Tensor& grad, const Tensor& input, const Tensor& q, std::optional<int64_t> dim,
                         const std::string& interpolation, bool ignore_nan) {
  const QuantileReads r = quantile_reads(input, q, dim, interpolation, ignore_nan);
  Tensor g = reshape(grad, r.lead);
  DimVec full = r.lead;
  full[full.size() - 1] = r.x.sizes()[r.x.dim() - 1];
  Tensor spread = scatter_add(scatter_add(zeros_sized(full, grad), -1, r.i_lo, g * r.w_lo), -1, r.i_hi, g * r.w_hi);
  if (q.dim() == 1) spread = sum(spread, DimVec{0}, false, ScalarType::Undefined);
  Tensor gx = scatter(zeros_sized(r.x.sizes(), grad), -1, r.order, spread, std::nullopt);
  if (dim) return movedim(gx, {-1}, {*dim});
  return reshape(gx, input.sizes());
}

// Linear interpolation moves with q at (sorted[hi] - sorted[lo]) * (n - 1); the other methods are
// piecewise constant in q.
Tensor quantile_backward_q(const Tensor& grad, const Tensor& input, const Tensor& q, std::optional<int64_t> dim,
                           const std::string& interpolation, bool ignore_nan) {
  const QuantileReads r = quantile_reads(input, q, dim, interpolation, ignore_nan);
  Tensor x = dim ? movedim(input, {*dim}, {-1}) : reshape(input, {-1});
  if (x.dim() == 0) x = reshape(x, {1});
  Tensor sorted = take_along_dim(x, r.order, -1);
  if (q.dim() == 1) sorted = unsqueeze(sorted, 0);  // against [Q, ..., 1]
  Tensor step = take_along_dim(sorted, r.i_hi, -1) - take_along_dim(sorted, r.i_lo, -1);
  Tensor per = reshape(grad, r.lead) * step * r.slope;
  if (q.dim() == 1) return sum(per, dims_after_first(per.dim()), false, ScalarType::Undefined);
  return reshape(sum(per, std::nullopt, false, ScalarType::Undefined), q.sizes());
}

}  // namespace ember::ad
