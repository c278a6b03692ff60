// Views that change the shape or the element type: view, reshape, flatten, ravel, unflatten,
// as_strided, view_as_real, view_as_complex. Reshaping views follow PyTorch's stride rule.
#include "generated/ops/as_strided.h"
#include "generated/ops/flatten.h"
#include "generated/ops/ravel.h"
#include "generated/ops/reshape.h"
#include "generated/ops/reshape_as.h"
#include "generated/ops/unflatten.h"
#include "generated/ops/view.h"
#include "generated/ops/view_as.h"
#include "generated/ops/view_as_complex.h"
#include "generated/ops/view_as_real.h"
#include "iter/copy.h"
#include "kernels/view_shape.h"

namespace ember {

DimVec infer_size(const DimVec& shape, int64_t numel) {
  int64_t inferred = -1, known = 1;
  bool overflow = false, zero = false;
  for (int64_t i = 0; i < shape.size(); i++) {
    if (shape[i] == -1) {
      EMBER_CHECK(inferred < 0, Runtime, "only one dimension can be inferred");
      inferred = i;
    } else {
      EMBER_CHECK(shape[i] >= 0, Runtime, "invalid shape dimension ", shape[i]);
      zero = zero || shape[i] == 0;
      overflow = overflow || __builtin_mul_overflow(known, shape[i], &known);
    }
  }
  if (zero) known = 0;  // a product that wrapped before reaching a 0 size is still 0
  // A product past int64 must not wrap around to the input's numel.
  EMBER_CHECK(zero || !overflow, Runtime, "shape '", shape, "' is invalid for input of size ", numel);
  const bool fits = known == numel || (inferred >= 0 && known > 0 && numel % known == 0);
  EMBER_CHECK(fits, Runtime, "shape '", shape, "' is invalid for input of size ", numel);
  DimVec out = shape;
  if (inferred >= 0) {
    EMBER_CHECK(known != 0, Runtime, "cannot reshape tensor of 0 elements into shape ", shape,
                " because the unspecified dimension size -1 can be any value and is ambiguous");
    out[inferred] = numel / known;
  }
  return out;
}

std::optional<DimVec> view_strides(const DimVec& sizes_in, const DimVec& strides_in, const DimVec& new_sizes) {
  // A 0-dim tensor behaves as one element of stride 1.
  const DimVec one{1};
  const DimVec& sizes = sizes_in.empty() ? one : sizes_in;
  const DimVec& strides = sizes_in.empty() ? one : strides_in;
  if (shape_numel(sizes) == 0) return sizes == new_sizes ? strides : contiguous_strides(new_sizes);
  DimVec out(new_sizes.size());
  // Walk the old dims from the innermost, grouping them into blocks that are laid out as one
  // contiguous run (stride of the block's innermost dim as unit). Each block must be covered
  // exactly by a run of new dims, which then get strides within the block.
  int64_t nv = int64_t(new_sizes.size()) - 1;
  int64_t unit = strides[sizes.size() - 1];
  int64_t block_numel = 1, covered = 1;
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; d--) {
    block_numel *= sizes[d];
    const bool block_ends = d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != block_numel * unit);
    if (!block_ends) continue;
    while (nv >= 0 && (covered < block_numel || new_sizes[nv] == 1)) {
      out[nv] = covered * unit;
      covered *= new_sizes[nv];
      nv--;
    }
    if (covered != block_numel) return std::nullopt;
    if (d > 0) {
      unit = strides[d - 1];
      block_numel = covered = 1;
    }
  }
  if (nv != -1) return std::nullopt;
  return out;
}

namespace ops {

Tensor view(const Tensor& input, const DimVec& size) {
  DimVec shape = infer_size(size, input.numel());
  auto st = view_strides(input.sizes(), input.strides(), shape);
  EMBER_CHECK(st, Runtime,
              "view size is not compatible with input tensor's size and stride (at least one dimension spans "
              "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(input, shape, *st, input.offset());
}

Tensor view_as(const Tensor& input, const Tensor& other) { return view(input, other.sizes()); }

Tensor reshape(const Tensor& input, const DimVec& shape) {
  DimVec sizes = infer_size(shape, input.numel());
  if (auto st = view_strides(input.sizes(), input.strides(), sizes))
    return make_view(input, sizes, *st, input.offset());
  Tensor c = contiguous_copy(input);
  return make_view(c, sizes, contiguous_strides(sizes), c.offset());
}

Tensor reshape_as(const Tensor& input, const Tensor& other) { return reshape(input, other.sizes()); }

Tensor flatten(const Tensor& input, int64_t start_dim, int64_t end_dim) {
  const int64_t nd = input.dim();
  int64_t s = wrap_dim(start_dim, nd), e = wrap_dim(end_dim, nd);
  EMBER_CHECK(s <= e, Runtime, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (nd == 0) return reshape(input, {1});
  if (s == e) return input;
  DimVec shape;
  for (int64_t d = 0; d < s; d++) shape.push_back(input.sizes()[d]);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; d++) merged *= input.sizes()[d];
  shape.push_back(merged);
  for (int64_t d = e + 1; d < nd; d++) shape.push_back(input.sizes()[d]);
  return reshape(input, shape);
}

Tensor ravel(const Tensor& input) {
  Tensor c = contiguous(input);
  return make_view(c, {c.numel()}, {1}, c.offset());
}

Tensor unflatten(const Tensor& input, int64_t dim, const DimVec& sizes) {
  EMBER_CHECK(input.dim() > 0, Index, "unflatten: Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, input.dim());
  EMBER_CHECK(!sizes.empty(), Runtime, "unflatten: sizes must be non-empty");
  const int64_t n = input.sizes()[d];
  int64_t inferred = -1, known = 1;
  for (int64_t i = 0; i < sizes.size(); i++) {
    if (sizes[i] == -1) {
      EMBER_CHECK(inferred < 0, Runtime, "unflatten: only one dimension can be inferred");
      inferred = i;
    } else {
      EMBER_CHECK(sizes[i] >= 0, Runtime, "unflatten: invalid size ", sizes[i], " in sizes ", sizes);
      known *= sizes[i];
    }
  }
  const bool fits = inferred < 0 ? known == n : known > 0 && n % known == 0;
  EMBER_CHECK(fits, Runtime, "unflatten: Provided sizes ", sizes, " don't multiply up to the size of dim ", dim, " (",
              n, ") in the input tensor");
  DimVec shape;
  for (int64_t k = 0; k < d; k++) shape.push_back(input.sizes()[k]);
  for (int64_t i = 0; i < sizes.size(); i++) shape.push_back(i == inferred ? n / known : sizes[i]);
  for (int64_t k = d + 1; k < input.dim(); k++) shape.push_back(input.sizes()[k]);
  return view(input, shape);
}

Tensor as_strided(const Tensor& input, const DimVec& size, const DimVec& stride,
                  std::optional<int64_t> storage_offset) {
  EMBER_CHECK(size.size() == stride.size(), Runtime, "mismatch in length of strides and shape");
  for (int64_t s : stride)
    EMBER_CHECK(s >= 0, Runtime, "as_strided: Negative strides are not supported at the moment, got strides: ", stride);
  const int64_t n = shape_numel(size);
  const int64_t offset = storage_offset ? *storage_offset : input.offset();
  EMBER_CHECK(offset >= 0, Runtime, "Tensor: invalid storage offset ", offset);
  // Bytes the view needs: (offset + 1 + sum((size - 1) * stride)) * itemsize, each step checked so
  // a huge stride or offset cannot wrap around to a small number that passes the bounds check.
  int64_t need = 0;
  bool overflow = false;
  if (n > 0) {
    int64_t extent = 1, reach = 0;
    for (int64_t i = 0; i < size.size(); i++)
      overflow = overflow || __builtin_mul_overflow(size[i] - 1, stride[i], &reach) ||
                 __builtin_add_overflow(extent, reach, &extent);
    overflow = overflow || __builtin_add_overflow(offset, extent, &need) ||
               __builtin_mul_overflow(need, input.itemsize(), &need);
  }
  EMBER_CHECK(n == 0 || (!overflow && need <= input.storage()->nbytes), Runtime, "setStorage: sizes ", size,
              ", strides ", stride, ", storage offset ", offset, ", and itemsize ", input.itemsize(),
              " requiring a storage size of ", overflow ? std::string("more than 2**63 - 1") : std::to_string(need),
              " are out of bounds for storage of size ", input.storage()->nbytes);
  return make_view(input, size, stride, offset);
}

Tensor view_as_real(const Tensor& input) {
  EMBER_CHECK(is_complex(input.dtype()), Runtime, "view_as_real is only supported for complex tensors, got ",
              dtype_name(input.dtype()));
  DimVec sizes = input.sizes(), strides;
  for (int64_t s : input.strides()) strides.push_back(2 * s);
  sizes.push_back(2);
  strides.push_back(1);
  return make_view(input, sizes, strides, 2 * input.offset(), to_real(input.dtype()));
}

Tensor view_as_complex(const Tensor& input) {
  const ScalarType dt = input.dtype();
  EMBER_CHECK(dt == ScalarType::Float32 || dt == ScalarType::Float64, Runtime,
              "view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: ",
              dtype_name(dt));
  EMBER_CHECK(input.dim() > 0, Runtime, "Input tensor must have one or more dimensions");
  const int64_t last = input.dim() - 1;
  EMBER_CHECK(input.sizes()[last] == 2, Runtime, "Tensor must have a last dimension of size 2");
  EMBER_CHECK(input.strides()[last] == 1, Runtime, "Tensor must have a last dimension with stride 1");
  DimVec sizes, strides;
  for (int64_t d = 0; d < last; d++) {
    EMBER_CHECK(input.strides()[d] % 2 == 0, Runtime,
                "Tensor must have a stride divisible by 2 for all but last dimension");
    sizes.push_back(input.sizes()[d]);
    strides.push_back(input.strides()[d] / 2);
  }
  EMBER_CHECK(input.offset() % 2 == 0, Runtime, "Tensor must have a storage_offset divisible by 2");
  return make_view(input, sizes, strides, input.offset() / 2, to_complex(dt));
}

}  // namespace ops
}  // namespace ember
