// The longer backward formulas, written with recorded ops so that they are differentiable too.
#include "autograd/formulas.h"

#include <algorithm>
#include <cmath>
#include <complex>

#include "autograd/engine.h"
#include "autograd/view_nodes.h"

namespace ember::ad {

void record_anomaly(Node& node) {
  if (!autograd::AnomalyMode::is_enabled()) return;
  auto& h = autograd::anomaly_hooks();
  if (h.current_stack) node.anomaly_trace = h.current_stack();
}

Scalar conj_scalar(const Scalar& s) {
  if (s.kind() != Scalar::Kind::Complex) return s;
  return Scalar(std::conj(s.to_complex()));
}

Tensor cj(const Tensor& t) { return is_complex(t.dtype()) ? conj(t) : t; }
Tensor times_i(const Tensor& t) { return mul(t, wrapped_scalar(Scalar(std::complex<double>(0.0, 1.0)))); }
DimVec negated(const DimVec& v) {
  DimVec r(v.size());
  for (size_t i = 0; i < v.size(); i++) r[i] = -v[i];
  return r;
}
std::optional<Scalar> fro_p(const std::string& p) {
  EMBER_CHECK(p == "fro", NotImplemented, "the derivative of norm(p='", p, "') is not implemented");
  return Scalar(2.0);
}

Tensor zeros_sized(const DimVec& sizes, const Tensor& like) {
  return ops::zeros(sizes, like.dtype(), like.device(), false);
}
Tensor zeros_of(const Tensor& t) { return zeros_sized(t.sizes(), t); }

namespace {

DimVec wrapped_dims(const std::optional<DimVec>& dim, int64_t ndim) {
  DimVec out;
  if (!dim || dim->empty()) {
    for (int64_t i = 0; i < ndim; i++) out.push_back(i);
    return out;
  }
  for (int64_t d : *dim) out.push_back(wrap_dim(d, ndim));
  std::sort(out.begin(), out.end());
  return out;
}

Tensor mH(const Tensor& t) { return cj(transpose(t, -2, -1)); }

double correction_of(const std::optional<Scalar>& correction, const std::optional<bool>& unbiased) {
  if (correction) return correction->to_double();
  return unbiased.value_or(true) ? 1.0 : 0.0;
}

int64_t count_of(const DimVec& sizes, const std::optional<DimVec>& dim) {
  int64_t n = 1;
  if (!sizes.empty())
    for (int64_t d : wrapped_dims(dim, sizes.size())) n *= sizes[d];
  return n;
}

}  // namespace

Tensor expand_reduced(const Tensor& grad, const DimVec& sizes, const std::optional<DimVec>& dim, bool keepdim) {
  Tensor g = grad;
  if (!keepdim && !sizes.empty())
    for (int64_t d : wrapped_dims(dim, sizes.size())) g = unsqueeze(g, d);
  return expand(g, sizes);
}

Tensor mean_backward(const Tensor& grad, const DimVec& sizes, const std::optional<DimVec>& dim, bool keepdim) {
  return expand_reduced(grad, sizes, dim, keepdim) / double(count_of(sizes, dim));
}

Tensor sgn_of(const Tensor& t) { return is_complex(t.dtype()) ? sgn(t) : sign(t); }

Tensor sgn_backward(const Tensor& grad, const Tensor& input, const Tensor& result) {
  if (!is_complex(input.dtype())) return zeros_of(grad);
  // s = z/|z| has ds/dz = 1/(2|z|) and ds/dconj(z) = -s^2/(2|z|): (g - conj(g) s^2) / (2|z|); 0 at 0.
  Tensor a = abs(input);
  Tensor r = (grad - conj(grad) * result * result) / (a * 2.0);
  return where(eq(a, num(0.0)), zeros_of(r), r);
}

Tensor copysign_backward(const Tensor& grad, const Tensor& input, const Tensor& result) {
  // copysign(x, y) is x or -x: the factor result / x, taken as 0 at x = 0 (PyTorch's choice).
  Tensor zero = eq(input, num(0.0));
  return grad * where(zero, zeros_of(result),
                      result / where(zero, ones_like(input, ScalarType::Undefined, std::nullopt, false), input));
}

Tensor angle_backward(const Tensor& grad, const Tensor& input) {
  if (!is_complex(input.dtype())) return zeros_of(input);
  // angle = atan2(b, a): d/da = -b/|z|^2, d/db = a/|z|^2, i.e. grad * i z / |z|^2; 0 at 0.
  Tensor a2 = real(input * conj(input));
  Tensor zero = eq(a2, num(0.0));
  Tensor safe = where(zero, ones_like(a2, ScalarType::Undefined, std::nullopt, false), a2);
  return where(zero, zeros_of(input), times_i(grad * input / safe));
}

Tensor evenly_distribute(const Tensor& grad, const Tensor& input, const Tensor& result,
                         const std::optional<DimVec>& dim, bool keepdim) {
  Tensor r = expand_reduced(result, input.sizes(), dim, keepdim);
  Tensor mask = logical_or(eq(input, r), logical_and(isnan(input), isnan(r)));
  Tensor count = sum(mask, dim, true, input.dtype());
  Tensor g = expand_reduced(grad, input.sizes(), dim, keepdim);
  return where(mask, g / expand(count, input.sizes()), zeros_of(g));
}

Tensor index_grad(const Tensor& grad, const DimVec& sizes, int64_t dim, const Tensor& indices, bool keepdim) {
  Tensor g = grad, idx = indices;
  if (!keepdim && !sizes.empty()) {
    g = unsqueeze(g, dim);
    idx = unsqueeze(idx, dim);
  }
  if (sizes.empty()) return g;  // a 0-dim input: its one element
  return scatter(zeros_sized(sizes, grad), wrap_dim(dim, sizes.size()), idx, g, std::nullopt);
}

Tensor var_backward(const Tensor& grad, const Tensor& input, const std::optional<DimVec>& dim,
                    const std::optional<Scalar>& correction, const std::optional<bool>& unbiased, bool keepdim) {
  double denom = std::max(0.0, double(count_of(input.sizes(), dim)) - correction_of(correction, unbiased));
  Tensor centered = input - mean(input, dim, true, ScalarType::Undefined);
  return expand_reduced(grad, input.sizes(), dim, keepdim) * centered * (2.0 / denom);
}

Tensor std_backward(const Tensor& grad, const Tensor& input, const Tensor& result, const std::optional<DimVec>& dim,
                    const std::optional<Scalar>& correction, const std::optional<bool>& unbiased, bool keepdim) {
  // d std = d var / (2 std); 0 where std is 0 (constant input), as PyTorch, not 0 * inf. The
  // divisor is 1 there, so that no inf or NaN reaches second derivatives through the other branch.
  Tensor zero = eq(result, num(0.0));
  Tensor safe = where(zero, ones_like(result, ScalarType::Undefined, std::nullopt, false), result);
  Tensor g = where(zero, zeros_of(grad), grad / (safe * 2.0));
  return var_backward(g, input, dim, correction, unbiased, keepdim);
}

Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result, std::optional<int64_t> dim,
                     bool keepdim) {
  // The product of the other elements, computed without dividing (exact where input has zeros):
  // exclusive cumulative products from the left and from the right.
  Tensor x = dim ? input : reshape(input, {-1});
  int64_t d = dim ? wrap_dim(*dim, std::max<int64_t>(input.dim(), 1)) : 0;
  if (x.dim() == 0) return grad;
  int64_t n = x.size(d);
  if (n == 0) return zeros_of(input);
  Tensor ones = ones_like(narrow(x, d, 0, 1), ScalarType::Undefined, std::nullopt, false);
  Tensor left = cat({ones, narrow(cumprod(x, d, ScalarType::Undefined), d, 0, n - 1)}, d);
  Tensor xr = flip(x, {d});
  Tensor right = flip(cat({ones, narrow(cumprod(xr, d, ScalarType::Undefined), d, 0, n - 1)}, d), {d});
  Tensor others = cj(left * right);
  Tensor g = dim ? expand_reduced(grad, input.sizes(), DimVec{d}, keepdim) : grad;
  Tensor r = g * others;
  return dim ? r : reshape(r, input.sizes());
}

Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& result) {
  if (input.dim() == 0) return grad;
  const int64_t d = wrap_dim(dim, input.dim()), n = input.size(d);
  if (n == 0) return zeros_of(input);
  const bool has_zero = ops::any(ops::eq(input, wrapped_scalar(Scalar(0.0))), std::nullopt, false).data_as<bool>()[0];
  if (!has_zero)  // d result_k / d x_i = result_k / x_i for k >= i: a reversed cumulative sum
    return flip(cumsum(flip(grad * cj(result), {d}), d, ScalarType::Undefined), {d}) / cj(input);
  // With zeros, no division: grad_i = L_i * S_i, L_i the product of the x before i and
  // S_i = g_i + x_{i+1} S_{i+1} (conjugated for complex inputs).
  variable_list S(n);
  S[n - 1] = narrow(grad, d, n - 1, 1);
  for (int64_t i = n - 2; i >= 0; i--) S[i] = narrow(grad, d, i, 1) + cj(narrow(input, d, i + 1, 1)) * S[i + 1];
  Tensor ones = ones_like(narrow(input, d, 0, 1), ScalarType::Undefined, std::nullopt, false);
  Tensor before = cat({ones, narrow(cumprod(input, d, ScalarType::Undefined), d, 0, n - 1)}, d);
  return cj(before) * cat(S, d);
}

Tensor logsumexp_backward(const Tensor& grad, const Tensor& input, const Tensor& result, const DimVec& dim,
                          bool keepdim) {
  std::optional<DimVec> d = dim.empty() ? std::nullopt : std::optional<DimVec>(dim);
  return expand_reduced(grad, input.sizes(), d, keepdim) *
         exp(input - expand_reduced(result, input.sizes(), d, keepdim));
}

Tensor atan2_grad(const Tensor& grad, const Tensor& input, const Tensor& other, bool for_input) {
  Tensor r2 = input * input + other * other;
  Tensor zero = eq(r2, num(0.0));  // divided by 1 there, so second derivatives see no 0/0 either
  Tensor safe = where(zero, ones_like(r2, ScalarType::Undefined, std::nullopt, false), r2);
  Tensor g = grad * (for_input ? other : -input) / safe;
  return where(zero, zeros_of(g), g);
}

Tensor norm_backward(const Tensor& grad, const Tensor& input, const Tensor& result, const std::optional<Scalar>& p_in,
                     const std::optional<DimVec>& dim, bool keepdim) {
  double p = p_in ? p_in->to_double() : 2.0;
  Tensor g = expand_reduced(grad, input.sizes(), dim, keepdim);
  Tensor r = expand_reduced(result, input.sizes(), dim, keepdim);
  if (p == 0.0) return zeros_of(input);
  if (p == 1.0) return g * sgn_of(input);
  if (p == 2.0) return where(eq(r, num(0.0)), zeros_of(g), g * input / r);
  if (std::isinf(p)) return evenly_distribute(grad, abs(input), result, dim, keepdim) * sgn_of(input);
  // |x|^(p-2) x / r^(p-1), which is 0 at x = 0 for every p > 0 (as PyTorch's); |x| is taken as 1 there
  // so that no 0 * inf enters this or the second derivative (for p < 2, |x|^(p-2) is infinite at 0).
  Tensor ax = abs(input);
  Tensor safe_ax = where(eq(ax, num(0.0)), ones_like(ax, ScalarType::Undefined, std::nullopt, false), ax);
  Tensor t = input * pow(safe_ax, num(p - 2.0)) / pow(r, num(p - 1.0));
  return where(eq(r, num(0.0)), zeros_of(g), g * t);
}

// A matrix stored column-major (a transposed view, as weight.t() in linear): its gradient is
// computed transposed too, so that the gradient of the underlying tensor comes out contiguous (as
// PyTorch's mm backward does), not as a transposed view that every later update walks across.
bool column_major(const Tensor& m) {
  return m.dim() == 2 && m.sizes()[0] > 1 && m.sizes()[1] > 1 && m.strides()[0] == 1 && m.strides()[1] == m.sizes()[0];
}

Tensor matmul_grad_input(const Tensor& grad, const Tensor& input, const Tensor& other) {
  if (input.dim() == 1 && other.dim() == 1) return grad * cj(other);
  if (other.dim() == 1) return unsqueeze(grad, -1) * cj(other);
  if (input.dim() == 1) return squeeze(matmul(cj(other), unsqueeze(grad, -1)), DimVec{-1});
  if (column_major(input) && other.dim() == 2) return mH(matmul(other, mH(grad)));
  return matmul(grad, mH(other));
}

Tensor matmul_grad_other(const Tensor& grad, const Tensor& input, const Tensor& other) {
  if (input.dim() == 1 && other.dim() == 1) return grad * cj(input);
  if (input.dim() == 1) return unsqueeze(cj(input), -1) * unsqueeze(grad, -2);
  if (other.dim() == 1) return squeeze(matmul(mH(input), unsqueeze(grad, -1)), DimVec{-1});
  if (column_major(other) && input.dim() == 2) return mH(matmul(mH(grad), input));
  return matmul(mH(input), grad);
}

Tensor permute_back(const Tensor& grad, const DimVec& dims) {
  DimVec inv(dims.size());
  for (size_t i = 0; i < dims.size(); i++) inv[wrap_dim(dims[i], dims.size())] = int64_t(i);
  return permute(grad, inv);
}

variable_list cat_backward(const Tensor& grad, const std::vector<DimVec>& sizes, int64_t dim) {
  variable_list out;
  int64_t nd = 0;
  for (const DimVec& s : sizes) nd = std::max<int64_t>(nd, s.size());
  int64_t d = wrap_dim(dim, nd);
  int64_t pos = 0;
  for (const DimVec& s : sizes) {
    if (s.size() == 1 && s[0] == 0 && nd > 1) {  // legacy empty inputs take no part
      out.push_back(zeros_sized(s, grad));
      continue;
    }
    out.push_back(narrow(grad, d, pos, s[d]));
    pos += s[d];
  }
  return out;
}

Tensor pow_backward_input(const Tensor& grad, const Tensor& input, const Tensor& exponent) {
  // exponent * input^(exponent - 1), taken as 0 where exponent is 0 (also at input 0).
  Tensor d = exponent * pow(input, exponent - 1.0);
  Tensor g = grad * cj(d);
  return where(eq(exponent, num(0.0)), zeros_of(g), g);
}

Tensor pow_backward_exponent(const Tensor& grad, const Tensor& input, const Tensor& exponent, const Tensor& result) {
  // result * log(input); 0 where input is 0 and the exponent is not negative (the limit there).
  Tensor g = grad * cj(result * log(input));
  Tensor zero_base = eq(input, num(0.0));
  Tensor cond = is_complex(exponent.dtype()) ? zero_base : logical_and(zero_base, ge(exponent, num(0.0)));
  return where(cond, zeros_of(g), g);
}

Tensor logit_backward(const Tensor& grad, const Tensor& input, std::optional<double> eps) {
  Tensor g = grad / (input * (1.0 - input));
  Tensor outside = eps ? logical_or(lt(input, num(*eps)), gt(input, num(1.0 - *eps)))
                       : logical_or(lt(input, num(0.0)), gt(input, num(1.0)));
  // The NaN outside [0, 1] is a constant: a product with g would put NaN into g's own gradient.
  Tensor fill = eps ? zeros_of(g) : full_like(g, Scalar(NAN), ScalarType::Undefined, std::nullopt, false);
  return where(outside, fill, g);
}

Tensor clamp_mask(const Tensor& input, const Tensor& lo, const Tensor& hi) {
  Tensor m = logical_not(isnan(input));
  if (lo.defined()) m = logical_and(m, ge(input, lo));
  if (hi.defined()) m = logical_and(m, le(input, hi));
  return m;
}

Tensor clamp_bound_grad(const Tensor& grad, const Tensor& input, const Tensor& bound, bool is_min) {
  Tensor active = is_min ? lt(input, bound) : gt(input, bound);
  return where(active, grad, zeros_of(grad));
}

Tensor view_backward(const Tensor& grad, const DimVec& sizes, const std::function<Tensor(const Tensor&)>& op) {
  Tensor m = empty(sizes, grad.dtype(), Device{DeviceType::Meta});
  Tensor v = op(m);
  return autograd::view_grad_to_base(grad, autograd::Geometry::of(m), autograd::Geometry::of(v));
}

Tensor as_strided_backward(const Tensor& grad, const DimVec& sizes, const DimVec& strides, int64_t offset,
                           const DimVec& size, const DimVec& stride, std::optional<int64_t> storage_offset) {
  return autograd::view_grad_to_base(grad, autograd::Geometry{sizes, strides, offset},
                                     autograd::Geometry{size, stride, storage_offset.value_or(offset)});
}

}  // namespace ember::ad
