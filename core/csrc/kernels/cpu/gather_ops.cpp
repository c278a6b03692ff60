// gather (out[..i..] = input[..index[..i..]..] along dim) and take_along_dim (gather after
// broadcasting input and indices outside dim, or on the flattened input).
#include "generated/ops/gather.h"
#include "generated/ops/take_along_dim.h"
#include "iter/copy.h"
#include "iter/tensor_iter.h"
#include "kernels/cpu/index_kernels.h"
#include "tensor/mem_overlap.h"

namespace ember::ops {

namespace {

Tensor gather_impl(const Tensor& input, int64_t dim, const Tensor& index_in, const char* op) {
  EMBER_CHECK(index_in.dtype() == ScalarType::Int64, Runtime, op, "(): Expected dtype int64 for index, but got ",
              dtype_name(index_in.dtype()));
  const Tensor self = atleast_1d_view(input), index = atleast_1d_view(index_in);
  const int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK(index.dim() == self.dim() || index_in.numel() == 0, Runtime, op,
              "(): Index tensor must have the same number of dimensions as input tensor (got ", index_in.dim(), " and ",
              input.dim(), ")");
  for (int64_t k = 0; k < self.dim() && index.dim() == self.dim(); k++) {
    EMBER_CHECK(k == d || index.sizes()[k] <= self.sizes()[k], Runtime, op, "(): Size does not match at dimension ", k,
                " expected index ", index_in.sizes(), " to be no larger than self ", input.sizes(),
                " apart from dimension ", d);
  }
  Tensor out = empty(index_in.sizes(), input.dtype(), input.device());
  if (out.is_meta() || out.numel() == 0) return out;
  const Tensor o = atleast_1d_view(out);
  IndexSpec spec;
  spec.size = self.sizes()[d];
  spec.scale = self.strides()[d] * self.itemsize();
  spec.dim = d;
  gather_loop(o.sizes(), index_operand(o, o.strides()), index_operand(self, strides_without(self, d)),
              index_operand(index, index.strides()), self.itemsize(), spec);
  return out;
}

Tensor take_along_dim_impl(const Tensor& input, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.dtype() == ScalarType::Int64, Runtime,
              "take_along_dim(): dtype of indices should be int64 but got ", dtype_name(indices.dtype()));
  if (!dim) {
    const Tensor flat = contiguous(input), idx = contiguous(indices);
    return gather_impl(make_view(flat, DimVec{flat.numel()}, DimVec{1}, flat.offset()), 0,
                       make_view(idx, DimVec{idx.numel()}, DimVec{1}, idx.offset()), "take_along_dim");
  }
  EMBER_CHECK(input.dim() == indices.dim(), Runtime,
              "take_along_dim(): input and indices should have the same number of dimensions, but got ", input.dim(),
              " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const Tensor self = atleast_1d_view(input), idx = atleast_1d_view(indices);
  const int64_t d = wrap_dim(*dim, self.dim());
  // Both broadcast to a common shape outside dim; along dim each keeps its own size.
  DimVec a = self.sizes(), b = idx.sizes();
  a[d] = 1;
  b[d] = 1;
  DimVec common = broadcast_shapes(a, b);
  auto expand_to = [&](const Tensor& t, int64_t keep) {
    DimVec sz = common, st(common.size(), 0);
    sz[d] = keep;
    for (int64_t k = 0; k < t.dim(); k++) st[k] = t.sizes()[k] == sz[k] ? t.strides()[k] : 0;
    return make_view(t, sz, st, t.offset());
  };
  Tensor r = gather_impl(expand_to(self, self.sizes()[d]), d, expand_to(idx, idx.sizes()[d]), "take_along_dim");
  return input.dim() == 0 ? make_view(r, DimVec{}, DimVec{}, r.offset()) : r;
}

}  // namespace

Tensor gather(const Tensor& input, int64_t dim, const Tensor& index, bool sparse_grad) {
  (void)sparse_grad;  // no sparse tensors: the gradient is always dense
  return gather_impl(input, dim, index, "gather");
}

Tensor gather_out(const Tensor& out, const Tensor& input, int64_t dim, const Tensor& index, bool sparse_grad) {
  (void)sparse_grad;
  // out may be the index itself (read in order), never the input (read out of order).
  assert_no_internal_overlap(out, "gather");
  assert_no_overlap(out, input, "gather");
  assert_no_partial_overlap(out, index, "gather");
  return write_out(out, gather_impl(input, dim, index, "gather"), "gather");
}

Tensor take_along_dim(const Tensor& input, const Tensor& indices, std::optional<int64_t> dim) {
  return take_along_dim_impl(input, indices, dim);
}

Tensor take_along_dim_out(const Tensor& out, const Tensor& input, const Tensor& indices, std::optional<int64_t> dim) {
  return write_out(out, take_along_dim_impl(input, indices, dim), "take_along_dim");
}

}  // namespace ember::ops
