// Writes by a vector of indices along one dim: index_add (source * alpha summed in), index_copy
// (source copied in) and index_fill (a value written), on the scatter loop. Out-of-place forms
// work on a copy of input.
#include "generated/ops/index_add.h"
#include "generated/ops/index_copy.h"
#include "generated/ops/index_fill.h"
#include "generated/ops/mul.h"
#include "iter/copy.h"
#include "kernels/cpu/index_kernels.h"
#include "kernels/scalar_value.h"
#include "tensor/mem_overlap.h"

namespace ember::ops {

namespace {

Tensor copy_of(const Tensor& input) {
  return input.is_meta() ? empty(input.sizes(), input.dtype(), input.device()) : contiguous_copy(input);
}

// self[..index[i]..] (op)= source[..i..] along d, source shaped like self with len(index) at d.
void index_update(const Tensor& self_in, int64_t dim, const Tensor& index_in, const Tensor& source_in, ScatterMode mode,
                  const char* op, bool allow_int32) {
  EMBER_CHECK(index_in.dim() <= 1, Index, op, "(): Index should have dimension 1 or 0 (got ", index_in.dim(), ")");
  const Tensor index = index_as_int64(index_in, op, allow_int32, ErrorKind::Index);
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self_in.dim(), 1));
  EMBER_CHECK(source_in.dtype() == self_in.dtype(), Runtime, op, "(): self (", dtype_name(self_in.dtype()),
              ") and source (", dtype_name(source_in.dtype()), ") must have the same scalar type");
  const Tensor self = atleast_1d_view(self_in);
  Tensor source = atleast_1d_view(source_in);
  EMBER_CHECK(source.dim() == self.dim(), Index, op, "(): source ", source_in.sizes(),
              " must have the same number of dimensions as self ", self_in.sizes());
  EMBER_CHECK(source.sizes()[d] == index.numel(), Index, op, "(): Number of indices (", index.numel(),
              ") should be equal to source.size(dim) (", source.sizes()[d], ")");
  for (int64_t k = 0; k < self.dim(); k++) {
    EMBER_CHECK(k == d || source.sizes()[k] == self.sizes()[k], Index, op, "(): self ", self_in.sizes(), " and source ",
                source_in.sizes(), " must have same size at dimension ", k);
  }
  if (self.is_meta() || index.numel() == 0) return;
  DimVec ist(self.dim(), 0);
  ist[d] = index.dim() ? index.strides()[0] : 0;
  IndexSpec spec;
  spec.size = self.sizes()[d];
  spec.scale = self.strides()[d] * self.itemsize();
  spec.dim = d;
  scatter_loop(source.sizes(), index_operand(self, strides_without(self, d)), index_operand(source, source.strides()),
               index_operand(index, ist), self.dtype(), mode, spec);
  self_in.bump_version();
}

void index_add_apply(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  Tensor src = source;
  if (!((alpha.is_int() || alpha.is_bool()) && alpha.to_int() == 1)) {
    EMBER_CHECK(!is_integral(self.dtype(), true) || alpha.is_int() || alpha.is_bool(), Runtime,
                "For integral input tensors, argument alpha must not be a floating point number.");
    if (source.dtype() == self.dtype() && !source.is_meta()) src = mul(source, wrapped_scalar(alpha));
  }
  index_update(self, dim, index, src, ScatterMode::Add, "index_add", true);
}

void index_fill_apply(const Tensor& self_in, int64_t dim, const Tensor& index_in, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, Runtime, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  EMBER_CHECK(!is_complex(value.dtype()) || is_complex(self_in.dtype()), Runtime, "index_fill_(): cannot fill a ",
              dtype_name(self_in.dtype()), " tensor with a complex value");
  check_value_fits(value, self_in.dtype());
  EMBER_CHECK(index_in.dim() <= 1, Index, "index_fill_(): Index should have dimension 1 or 0 (got ", index_in.dim(),
              ")");
  const Tensor index = index_as_int64(index_in, "index_fill_", false, ErrorKind::Index);
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self_in.dim(), 1));
  if (self_in.is_meta() || index.numel() == 0) return;
  const Tensor self = atleast_1d_view(self_in);
  const Tensor v = value.dtype() == self.dtype() ? value : to_dtype(value, self.dtype());
  DimVec shape = self.sizes();
  shape[d] = index.numel();
  DimVec ist(self.dim(), 0);
  ist[d] = index.dim() ? index.strides()[0] : 0;
  IndexSpec spec;
  spec.size = self.sizes()[d];
  spec.scale = self.strides()[d] * self.itemsize();
  spec.dim = d;
  scatter_loop(shape, index_operand(self, strides_without(self, d)), scalar_operand(v, shape.size()),
               index_operand(index, ist), self.dtype(), ScatterMode::Assign, spec);
  self_in.bump_version();
}

}  // namespace

Tensor index_add(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  Tensor out = copy_of(input);
  index_add_apply(out, dim, index, source, alpha);
  return out;
}

// PyTorch's rules for the in-place index writes: self may not overlap itself, the index or the source.
void check_index_write_overlap(const Tensor& self, const Tensor& index, const Tensor& source, const char* op) {
  assert_no_internal_overlap(self, op);
  assert_no_overlap(self, index, op);
  assert_no_overlap(self, source, op);
}

Tensor index_add_(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_index_write_overlap(input, index, source, "index_add_");
  index_add_apply(input, dim, index, source, alpha);
  return input;
}

Tensor index_add_out(const Tensor& out, const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source,
                     const Scalar& alpha) {
  return write_out(out, index_add(input, dim, index, source, alpha), "index_add");
}

Tensor index_copy(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source) {
  Tensor out = copy_of(input);
  index_update(out, dim, index, source, ScatterMode::Assign, "index_copy", false);
  return out;
}

Tensor index_copy_(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source) {
  check_index_write_overlap(input, index, source, "index_copy_");
  index_update(input, dim, index, source, ScatterMode::Assign, "index_copy_", false);
  return input;
}

Tensor index_copy_out(const Tensor& out, const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source) {
  return write_out(out, index_copy(input, dim, index, source), "index_copy");
}

Tensor index_fill(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& value) {
  Tensor out = copy_of(input);
  index_fill_apply(out, dim, index, value);
  return out;
}

Tensor index_fill_(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& value) {
  index_fill_apply(input, dim, index, value);
  return input;
}

}  // namespace ember::ops
