// What the generated differentiable layer (generated/autograd/*.cpp) and the backward formulas of
// core/ops/*.yaml see: the autograd names, arithmetic operators on tensors that record (so formulas
// read as math and stay differentiable), and helpers for the longer formulas (formulas.cpp).
#pragma once
#include <algorithm>
#include <functional>
#include <optional>
#include <vector>

#include "autograd/formulas_fft.h"      // the FFT kernels' helpers
#include "autograd/formulas_linalg.h"   // the linalg ops' helpers
#include "autograd/formulas_rnn.h"      // the recurrent layers' backward
#include "autograd/formulas_special.h"  // the special functions' helpers
#include "autograd/forward_ad.h"
#include "autograd/grad_mode.h"
#include "autograd/indexing.h"
#include "autograd/meta.h"
#include "autograd/saved_variable.h"
#include "base/error.h"
#include "generated/ops.h"
#include "tensor/factory.h"

namespace ember::ad {

using autograd::check_inplace;
using autograd::gradient_edge;
using autograd::GradMode;
using autograd::mark_view;
using autograd::Node;
using autograd::NotImplementedBackward;
using autograd::rebase_history;
using autograd::requires_grad;
using autograd::SavedVariable;
using autograd::set_history;
using autograd::set_requires_grad;
using autograd::variable_list;
namespace forward = autograd::forward;

inline bool any_requires_grad(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts)
    if (requires_grad(t)) return true;
  return false;
}
inline bool any_needs_input_grad(const Node& n, size_t first, size_t count) {
  for (size_t i = first; i < first + count; i++)
    if (n.needs_input_grad(i)) return true;
  return false;
}
inline variable_list unpack_all(const std::vector<SavedVariable>& saved, const std::shared_ptr<Node>& owner) {
  variable_list out;
  for (const SavedVariable& s : saved) out.push_back(s.unpack(owner));
  return out;
}
inline bool differentiable_dtype(const Tensor& t) { return is_floating(t.dtype()) || is_complex(t.dtype()); }
// In anomaly mode, keeps the Python stack of the op being recorded on its node.
void record_anomaly(Node& node);

// Arithmetic on tensors, recorded.
inline Tensor num(double v) { return wrapped_scalar(Scalar(v)); }
inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b, Scalar(int64_t(1))); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b, Scalar(int64_t(1))); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b, std::nullopt); }
inline Tensor operator-(const Tensor& a) { return neg(a); }
inline Tensor operator+(const Tensor& a, double b) { return a + num(b); }
inline Tensor operator-(const Tensor& a, double b) { return a - num(b); }
inline Tensor operator*(const Tensor& a, double b) { return a * num(b); }
inline Tensor operator/(const Tensor& a, double b) { return a / num(b); }
inline Tensor operator+(double a, const Tensor& b) { return num(a) + b; }
inline Tensor operator-(double a, const Tensor& b) { return num(a) - b; }
inline Tensor operator*(double a, const Tensor& b) { return num(a) * b; }
inline Tensor operator/(double a, const Tensor& b) { return num(a) / b; }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, wrapped_scalar(b)); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(wrapped_scalar(a), b); }

// A Scalar argument's complex conjugate (gradients of complex ops take conj of the multiplier).
Scalar conj_scalar(const Scalar& s);
// Zeros shaped and typed like t, or given sizes/dtype.
Tensor zeros_of(const Tensor& t);
Tensor zeros_sized(const DimVec& sizes, const Tensor& like);
// Gradient of a reduction over `dim` (None: all) without keepdim: grad put back to `sizes`.
Tensor expand_reduced(const Tensor& grad, const DimVec& sizes, const std::optional<DimVec>& dim, bool keepdim);
Tensor mean_backward(const Tensor& grad, const DimVec& sizes, const std::optional<DimVec>& dim, bool keepdim);
// d|x| style: the gradient of a real function of a complex input; for real inputs the usual sign.
Tensor sgn_of(const Tensor& t);
Tensor sgn_backward(const Tensor& grad, const Tensor& input, const Tensor& result);
Tensor copysign_backward(const Tensor& grad, const Tensor& input, const Tensor& result);
Tensor angle_backward(const Tensor& grad, const Tensor& input);
// grad * d(result)/d(input) for results that pick an input element (max, min, median...):
// grad spread evenly over the elements equal to result.
Tensor evenly_distribute(const Tensor& grad, const Tensor& input, const Tensor& result,
                         const std::optional<DimVec>& dim, bool keepdim);
// Gradient through an index along dim (max_dim, sort, topk...): zeros with grad scattered at indices.
Tensor index_grad(const Tensor& grad, const DimVec& sizes, int64_t dim, const Tensor& indices, bool keepdim);
Tensor var_backward(const Tensor& grad, const Tensor& input, const std::optional<DimVec>& dim,
                    const std::optional<Scalar>& correction, const std::optional<bool>& unbiased, bool keepdim);
Tensor std_backward(const Tensor& grad, const Tensor& input, const Tensor& result, const std::optional<DimVec>& dim,
                    const std::optional<Scalar>& correction, const std::optional<bool>& unbiased, bool keepdim);
Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result, std::optional<int64_t> dim,
                     bool keepdim);
Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& result);
Tensor logsumexp_backward(const Tensor& grad, const Tensor& input, const Tensor& result, const DimVec& dim,
                          bool keepdim);
// atan2's gradient for input (for_input) or other: grad (other or -input) / (input^2 + other^2), 0
// where both are 0 (PyTorch's value there).
Tensor atan2_grad(const Tensor& grad, const Tensor& input, const Tensor& other, bool for_input);
Tensor norm_backward(const Tensor& grad, const Tensor& input, const Tensor& result, const std::optional<Scalar>& p,
                     const std::optional<DimVec>& dim, bool keepdim);
// matmul's gradients for each operand, for every broadcasting batch rule.
Tensor matmul_grad_input(const Tensor& grad, const Tensor& input, const Tensor& other);
Tensor matmul_grad_other(const Tensor& grad, const Tensor& input, const Tensor& other);
// The views' gradients.
Tensor permute_back(const Tensor& grad, const DimVec& dims);
variable_list cat_backward(const Tensor& grad, const std::vector<DimVec>& sizes, int64_t dim);
// conj for complex tensors, the tensor itself otherwise (no copy).
Tensor cj(const Tensor& t);
Tensor times_i(const Tensor& t);  // t * 1j
DimVec negated(const DimVec& v);
std::optional<Scalar> fro_p(const std::string& p);  // norm(p='fro') is the 2-norm
Tensor pow_backward_input(const Tensor& grad, const Tensor& input, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& input, const Tensor& exponent, const Tensor& result);
Tensor logit_backward(const Tensor& grad, const Tensor& input, std::optional<double> eps);
Tensor clamp_mask(const Tensor& input, const Tensor& lo, const Tensor& hi);  // lo <= input <= hi (undefined: no bound)
Tensor clamp_bound_grad(const Tensor& grad, const Tensor& input, const Tensor& bound, bool is_min);
// The gradient of any view op: `op` replayed on a meta tensor of the input's sizes gives the view's
// geometry, and grad is scattered into it.
Tensor view_backward(const Tensor& grad, const DimVec& sizes, const std::function<Tensor(const Tensor&)>& op);
Tensor as_strided_backward(const Tensor& grad, const DimVec& sizes, const DimVec& strides, int64_t offset,
                           const DimVec& size, const DimVec& stride, std::optional<int64_t> storage_offset);

// An optional single dim as the optional dim list the reduction helpers take.
inline std::optional<DimVec> dims_of(std::optional<int64_t> dim) {
  if (!dim) return std::nullopt;
  return DimVec{*dim};
}

// formulas_index.cpp
Tensor pad_to(const Tensor& t, const DimVec& sizes);  // zeros appended along each dim up to sizes
Tensor take_along_dim_backward(const Tensor& grad, const DimVec& input_sizes, const Tensor& indices,
                               std::optional<int64_t> dim);
Tensor scatter_backward_input(const Tensor& grad, int64_t dim, const Tensor& index,
                              const std::optional<std::string>& reduce);
Tensor scatter_backward_src(const Tensor& grad, int64_t dim, const Tensor& index, const DimVec& src_sizes,
                            const std::optional<std::string>& reduce);
variable_list scatter_reduce_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& index,
                                      const Tensor& src, const std::string& reduce, bool include_self,
                                      const Tensor& result);
Tensor masked_select_backward(const Tensor& grad, const DimVec& input_sizes, const Tensor& mask);
Tensor masked_scatter_backward_source(const Tensor& grad, const Tensor& mask, const DimVec& source_sizes);

// formulas_products.cpp
Tensor tensordot_backward_a(const Tensor& grad, const Tensor& a, const Tensor& b, const DimVec& dims_a,
                            const DimVec& dims_b);
Tensor tensordot_backward_b(const Tensor& grad, const Tensor& a, const Tensor& b, const DimVec& dims_a,
                            const DimVec& dims_b);
Tensor inner_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool for_self);
Tensor kron_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool for_self);
variable_list einsum_backward(const Tensor& grad, const std::string& equation, const std::vector<Tensor>& tensors);

// formulas_shape.cpp; kind is hstack, vstack, dstack or column_stack. diff's part: 0 prepend,
// 1 input, 2 append.
variable_list stack_family_backward(const Tensor& grad, const std::vector<DimVec>& sizes, const std::string& kind);
Tensor repeat_backward(const Tensor& grad, const DimVec& repeats, const DimVec& input_sizes);
Tensor tile_backward(const Tensor& grad, const DimVec& dims, const DimVec& input_sizes);
Tensor diff_backward(const Tensor& grad, int64_t n, int64_t dim, const DimVec& input_sizes, const Tensor& prepend,
                     const Tensor& append, int part);

// formulas_reduce.cpp
Tensor nanmean_backward(const Tensor& grad, const Tensor& input, const std::optional<DimVec>& dim, bool keepdim);
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& input, const Tensor& result, int64_t dim);
Tensor msort_backward(const Tensor& grad, const Tensor& input);
Tensor quantile_backward(const Tensor& grad, const Tensor& input, const Tensor& q, std::optional<int64_t> dim,
                         const std::string& interpolation, bool ignore_nan);
Tensor quantile_backward_q(const Tensor& grad, const Tensor& input, const Tensor& q, std::optional<int64_t> dim,
                           const std::string& interpolation, bool ignore_nan);

// formulas_nn.cpp
Tensor elu_backward(const Tensor& grad, const Tensor& input, double alpha, double scale, double input_scale);
Tensor gelu_backward(const Tensor& grad, const Tensor& input, const std::string& approximate);
Tensor silu_backward(const Tensor& grad, const Tensor& input);
Tensor mish_backward(const Tensor& grad, const Tensor& input);
Tensor softplus_backward(const Tensor& grad, const Tensor& input, double beta, double threshold);
Tensor hardswish_backward(const Tensor& grad, const Tensor& input);
Tensor batch_norm_grad(const Tensor& grad, const Tensor& input, const Tensor& weight, const Tensor& save_mean,
                       const Tensor& save_invstd, bool training, double eps, int which);
Tensor batch_norm_stats_grad(const Tensor& grad_mean, const Tensor& grad_invstd, const Tensor& input,
                             const Tensor& save_mean, const Tensor& save_invstd, bool training);

// formulas_loss.cpp: binary_cross_entropy's target gradient and its gradient's derivatives
Tensor bce_target_grad(const Tensor& grad, const Tensor& input, const Tensor& target, const Tensor& weight,
                       int64_t reduction);
Tensor bce_double_grad_output(const Tensor& grad, const Tensor& input, const Tensor& target, const Tensor& weight,
                              int64_t reduction);
Tensor bce_double_grad_input(const Tensor& grad, const Tensor& grad_output, const Tensor& input, const Tensor& target,
                             const Tensor& weight, int64_t reduction);
Tensor bce_double_grad_target(const Tensor& grad, const Tensor& grad_output, const Tensor& input, const Tensor& target,
                              const Tensor& weight, int64_t reduction);

// formulas_conv.cpp
Tensor conv_backward_input(const Tensor& grad, const DimVec& input_sizes, const Tensor& weight, const DimVec& stride,
                           const DimVec& padding, const DimVec& dilation, bool transposed, int64_t groups);
Tensor conv_backward_bias(const Tensor& grad);
Tensor pool_index_gather(const Tensor& grad, const Tensor& indices);
DimVec grad_output_sizes_spatial(const DimVec& sizes);  // sizes[2:]

}  // namespace ember::ad
