// Gradients of the indexing ops that write or read through an index tensor or a mask: each
// gradient is the matching read or write of grad (scatter <-> gather, masked_scatter <->
// masked_select), so gradients of gradients stay in the same family.
#include "autograd/formulas.h"
#include "iter/tensor_iter.h"

namespace ember::ad {

Tensor pad_to(const Tensor& t, const DimVec& sizes) {
  Tensor r = t;
  for (size_t d = 0; d < sizes.size(); d++) {
    const int64_t have = r.sizes()[d];
    if (have >= sizes[d]) continue;
    DimVec z = r.sizes();
    z[d] = sizes[d] - have;
    r = cat({r, zeros_sized(z, r)}, int64_t(d));
  }
  return r;
}

// take_along_dim broadcasts input and indices outside dim, then gathers: the gradient scatters
// into that broadcast shape (the engine sums it back to the input's).
Tensor take_along_dim_backward(const Tensor& grad, const DimVec& input_sizes, const Tensor& indices,
                               std::optional<int64_t> dim) {
  if (!dim) {
    int64_t n = 1;
    for (int64_t s : input_sizes) n *= s;
    Tensor flat = scatter_add(zeros_sized({n}, grad), 0, reshape(indices, {-1}), reshape(grad, {-1}));
    return reshape(flat, input_sizes);
  }
  if (input_sizes.empty()) return sum(grad, std::nullopt, false, ScalarType::Undefined);
  const int64_t d = wrap_dim(*dim, input_sizes.size());
  DimVec full = grad.sizes();
  full[d] = input_sizes[d];
  DimVec idx_sizes = grad.sizes();
  return scatter_add(zeros_sized(full, grad), d, expand(indices, idx_sizes), grad);
}

Tensor scatter_backward_input(const Tensor& grad, int64_t dim, const Tensor& index,
                              const std::optional<std::string>& reduce) {
  if (!reduce) return scatter(grad, dim, index, num(0.0), std::nullopt);
  EMBER_CHECK(*reduce == "add", NotImplemented, "the derivative of scatter with reduce='", *reduce,
              "' is not implemented (use scatter_reduce)");
  return grad;
}

Tensor scatter_backward_src(const Tensor& grad, int64_t dim, const Tensor& index, const DimVec& src_sizes,
                            const std::optional<std::string>& reduce) {
  EMBER_CHECK(!reduce || *reduce == "add", NotImplemented, "the derivative of scatter with reduce='", *reduce,
              "' is not implemented (use scatter_reduce)");
  Tensor g = gather(grad, dim, index, false);
  if (src_sizes.empty()) return sum(g, std::nullopt, false, ScalarType::Undefined);
  return pad_to(g, src_sizes);  // src may be larger than index: its unread part gets zeros
}

// {grad_input, grad_src} of scatter_reduce for each reduction, with include_self. Where
// include_self=False, the scattered positions of input were not read: their gradient is zero.
variable_list scatter_reduce_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& index,
                                      const Tensor& src, const std::string& reduce, bool include_self,
                                      const Tensor& result) {
  Tensor g_in, g_src;
  auto count = [&](const Tensor& self_part, const Tensor& src_part) {
    Tensor n = scatter_add(self_part, dim, index, src_part);
    return where(eq(n, num(0.0)), ones_like(n, ScalarType::Undefined, std::nullopt, false), n);
  };
  if (reduce == "sum") {
    g_in = grad;
    g_src = gather(grad, dim, index, false);
  } else if (reduce == "mean") {
    Tensor n = count(full_like(grad, Scalar(include_self ? 1.0 : 0.0), ScalarType::Undefined, std::nullopt, false),
                     ones_like(src, grad.dtype(), std::nullopt, false));
    g_in = grad / n;
    g_src = gather(g_in, dim, index, false);
  } else if (reduce == "prod") {
    // Zeros are handled exactly: a zero's gradient is the product of the others.
    Tensor one = num(1.0);
    Tensor self_nz = where(eq(input, num(0.0)), one, input);
    g_in = grad * scatter_reduce(self_nz, dim, index, src, reduce, include_self) / self_nz;
    Tensor src_zero = eq(src, num(0.0));
    Tensor zeros_here = gather(
        scatter_add(zeros_of(input), dim, index, _to_copy(src_zero, input.dtype(), std::nullopt)), dim, index, false);
    Tensor lone_zero = logical_and(src_zero, eq(zeros_here, num(1.0)));
    Tensor without_it = scatter_reduce(input, dim, index, where(lone_zero, one, src), reduce, include_self);
    g_src = where(lone_zero, gather(grad * without_it, dim, index, false),
                  gather(grad * result, dim, index, false) / where(src_zero, one, src));
  } else if (reduce == "amax" || reduce == "amin") {
    // Ties share the gradient evenly, as max does.
    Tensor value = gather(result, dim, index, false);
    Tensor self_is = include_self ? _to_copy(eq(input, result), grad.dtype(), std::nullopt) : zeros_of(grad);
    Tensor src_is = _to_copy(eq(src, value), grad.dtype(), std::nullopt);
    Tensor share = grad / count(self_is, src_is);
    g_in = include_self ? self_is * share : grad;
    g_src = src_is * gather(share, dim, index, false);
  } else {
    EMBER_FAIL(Runtime, "scatter_reduce: reduce argument must be one of sum, prod, mean, amax, amin, got ", reduce);
  }
  if (!include_self) g_in = scatter(g_in, dim, index, num(0.0), std::nullopt);
  return {g_in, g_src};
}

// masked_select reads the broadcast input at mask's true positions in order: the gradient writes
// grad back there (the engine sums a broadcast input's gradient back to its shape).
Tensor masked_select_backward(const Tensor& grad, const DimVec& input_sizes, const Tensor& mask) {
  const DimVec shape = broadcast_shapes(input_sizes, mask.sizes());
  return masked_scatter(zeros_sized(shape, grad), expand(mask, shape), grad);
}

// masked_scatter reads source's first k elements, k = the number of true positions.
Tensor masked_scatter_backward_source(const Tensor& grad, const Tensor& mask, const DimVec& source_sizes) {
  Tensor taken = masked_select(grad, mask);
  int64_t n = 1;
  for (int64_t s : source_sizes) n *= s;
  return reshape(pad_to(taken, {n}), source_sizes);
}

}  // namespace ember::ad
