// Writes by index tensors: index_put (self[indices] = values, or += with accumulate) and put
// (writes at positions of the flattened tensor).
#include "generated/ops/index_put.h"

#include "generated/ops/put.h"
#include "iter/copy.h"
#include "kernels/cpu/index_advanced.h"
#include "kernels/cpu/index_kernels.h"
#include "tensor/mem_overlap.h"

namespace ember::ops {

namespace {

Tensor copy_of(const Tensor& input) {
  return input.is_meta() ? empty(input.sizes(), input.dtype(), input.device()) : contiguous_copy(input);
}

void index_put_apply(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  EMBER_CHECK(values.dtype() == self.dtype(), Runtime,
              "Index put requires the source and destination dtypes match, got ", dtype_name(self.dtype()),
              " for the destination and ", dtype_name(values.dtype()), " for the source.");
  EMBER_CHECK(!indices.empty(), Runtime, "index_put_(): expected at least one index tensor");
  // PyTorch sends one mask and a 0-dim value to masked_fill_, which takes only bool masks.
  EMBER_CHECK(
      !(indices.size() == 1 && indices[0].defined() && indices[0].dtype() == ScalarType::UInt8 && values.dim() == 0),
      Runtime, "masked_fill_ only supports boolean masks, but got mask with dtype uint8");
  for (const Tensor& t : indices) {
    const ScalarType dt = t.dtype();
    EMBER_CHECK(dt == ScalarType::Int64 || dt == ScalarType::Int32 || dt == ScalarType::Bool || dt == ScalarType::UInt8,
                Index, "tensors used as indices must be long, int, byte or bool tensors (got ", dtype_name(dt), ")");
  }
  check_index_put_overlap(self, indices, values);
  if (self.is_meta()) return;
  advanced_index_put_(self, expand_index_list(self, indices), values, accumulate);
}

void put_apply(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  EMBER_CHECK(index.dtype() == ScalarType::Int64, Runtime, "put_(): Expected a long tensor for index, but got ",
              dtype_name(index.dtype()));
  EMBER_CHECK(source.dtype() == self.dtype(), Runtime,
              "put_(): self and source expected to have the same dtype, but got self.dtype = ",
              dtype_name(self.dtype()), " and source.dtype = ", dtype_name(source.dtype()));
  EMBER_CHECK(source.numel() == index.numel(), Runtime,
              "put_(): Expected source and index to have the same number of elements, but got source.numel() = ",
              source.numel(), ", index.numel() = ", index.numel());
  if (self.is_meta() || index.numel() == 0) return;
  EMBER_CHECK(self.numel() > 0, Index, "put_(): tried to put into an empty tensor");
  // Flat positions count in row-major order, so a non-contiguous self is written through a copy.
  const Tensor work = self.is_contiguous() ? self : contiguous_copy(self);
  Tensor src = contiguous(source);
  if (src.storage().get() == work.storage().get()) src = contiguous_copy(src);
  const Tensor idx = contiguous(index);
  const int64_t n = idx.numel();
  IndexSpec spec;
  spec.size = work.numel();
  spec.scale = work.itemsize();
  scatter_loop(DimVec{n}, index_operand(work, DimVec{0}), index_operand(src, DimVec{1}), index_operand(idx, DimVec{1}),
               work.dtype(), accumulate ? ScatterMode::Add : ScatterMode::Assign, spec);
  if (!work.is_same(self)) copy_(self, work);
  self.bump_version();
}

}  // namespace

Tensor index_put(const Tensor& input, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  Tensor out = copy_of(input);
  index_put_apply(out, indices, values, accumulate);
  return out;
}

Tensor index_put_(const Tensor& input, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  index_put_apply(input, indices, values, accumulate);
  return input;
}

Tensor put(const Tensor& input, const Tensor& index, const Tensor& source, bool accumulate) {
  Tensor out = copy_of(input);
  put_apply(out, index, source, accumulate);
  return out;
}

Tensor put_(const Tensor& input, const Tensor& index, const Tensor& source, bool accumulate) {
  assert_no_internal_overlap(input, "put_");
  assert_no_overlap(input, index, "put_");
  assert_no_overlap(input, source, "put_");
  put_apply(input, index, source, accumulate);
  return input;
}

}  // namespace ember::ops
