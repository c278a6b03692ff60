// Reads by index along one dim (index_select) and of the flattened tensor (take), both on the
// gather loop: the index moves the source pointer along the selected dim only.
#include "generated/ops/index_select.h"

#include "generated/ops/take.h"
#include "iter/copy.h"
#include "kernels/cpu/index_kernels.h"
#include "tensor/mem_overlap.h"

namespace ember::ops {

namespace {

Tensor index_select_impl(const Tensor& input, int64_t dim, const Tensor& index_in) {
  EMBER_CHECK(index_in.dim() <= 1, Index, "index_select(): Index is supposed to be a vector, but got a tensor with ",
              index_in.dim(), " dims");
  Tensor index = index_as_int64(index_in, "index_select", true, ErrorKind::Index);
  const int64_t d = wrap_dim(dim, std::max<int64_t>(input.dim(), 1));
  const Tensor self = atleast_1d_view(input);
  DimVec sizes = self.sizes();
  sizes[d] = index.numel();
  if (input.dim() == 0) {
    EMBER_CHECK(index.numel() == 1, Index, "index_select(): Index to scalar can have only 1 value, got ", index.numel(),
                " value(s)");
    sizes = DimVec{};
  }
  Tensor out = empty(sizes, input.dtype(), input.device());
  if (out.is_meta() || index.numel() == 0) return out;
  // Nothing is read when another dim is empty, but the indices must still exist (PyTorch checks).
  if (out.numel() == 0) check_index_range(index, self.sizes()[d], d);
  const Tensor o = atleast_1d_view(out);
  DimVec ist(self.dim(), 0);
  ist[d] = index.dim() ? index.strides()[0] : 0;
  IndexSpec spec;
  spec.size = self.sizes()[d];
  spec.scale = self.strides()[d] * self.itemsize();
  spec.dim = d;
  gather_loop(o.sizes(), index_operand(o, o.strides()), index_operand(self, strides_without(self, d)),
              index_operand(index, ist), self.itemsize(), spec);
  return out;
}

Tensor take_impl(const Tensor& input, const Tensor& index) {
  EMBER_CHECK(index.dtype() == ScalarType::Int64, Runtime, "take(): Expected a long tensor for index, but got ",
              dtype_name(index.dtype()));
  Tensor out = empty(index.sizes(), input.dtype(), input.device());
  if (out.is_meta() || out.numel() == 0) {
    EMBER_CHECK(out.numel() == 0 || input.numel() > 0 || out.is_meta(), Index,
                "take(): tried to take from an empty tensor");
    return out;
  }
  EMBER_CHECK(input.numel() > 0, Index, "take(): tried to take from an empty tensor");
  const Tensor flat = contiguous(input);
  const int64_t nd = index.dim();
  IndexSpec spec;
  spec.size = flat.numel();
  spec.scale = flat.itemsize();
  gather_loop(index.sizes(), index_operand(out, out.strides()), index_operand(flat, DimVec(nd, 0)),
              index_operand(index, index.strides()), flat.itemsize(), spec);
  return out;
}

}  // namespace

Tensor index_select(const Tensor& input, int64_t dim, const Tensor& index) {
  return index_select_impl(input, dim, index);
}

Tensor index_select_out(const Tensor& out, const Tensor& input, int64_t dim, const Tensor& index) {
  // PyTorch refuses any overlap of out with what it reads, even out=input.
  assert_no_internal_overlap(out, "index_select");
  assert_no_overlap(out, input, "index_select");
  assert_no_overlap(out, index, "index_select");
  return write_out(out, index_select_impl(input, dim, index), "index_select");
}

Tensor take(const Tensor& input, const Tensor& index) { return take_impl(input, index); }

Tensor take_out(const Tensor& out, const Tensor& input, const Tensor& index) {
  assert_no_internal_overlap(out, "take");
  assert_no_overlap(out, input, "take");
  assert_no_overlap(out, index, "take");
  return write_out(out, take_impl(input, index), "take");
}

}  // namespace ember::ops
