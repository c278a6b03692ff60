// Boolean-mask ops: masked_fill (a value where the mask is true), masked_select (the selected
// elements as a 1-D tensor) and masked_scatter (source's elements, in order, into the true places).
#include <vector>

#include "device/parallel.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/masked_scatter.h"
#include "generated/ops/masked_select.h"
#include "generated/ops/where.h"
#include "iter/copy.h"
#include "iter/tensor_iter.h"
#include "kernels/cpu/index_advanced.h"
#include "kernels/cpu/index_kernels.h"
#include "kernels/scalar_value.h"
#include "tensor/mem_overlap.h"

namespace ember {

namespace {

constexpr int64_t kBlock = 1 << 16;

struct Bytes16 {
  uint64_t lo, hi;
};

// Copies the selected elements of each block to its prefix-sum offset. Up to the block's last true
// element the store is unconditional (the position only advances on true), so no branch per element.
template <class E>
void compact_typed(const E* x, const uint8_t* m, E* out, const std::vector<int64_t>& start, int64_t n) {
  const int64_t nblocks = int64_t(start.size()) - 1;
  parallel_for(nblocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; blk++) {
      const int64_t s = blk * kBlock;
      int64_t last = std::min(n, s + kBlock) - 1;
      while (last >= s && !m[last]) last--;
      E* o = out + start[blk];
      int64_t k = 0;
      for (int64_t i = s; i <= last; i++) {
        o[k] = x[i];
        k += m[i] != 0;
      }
    }
  });
}

}  // namespace

Tensor masked_compact(const Tensor& self_in, const Tensor& mask_in) {
  const Tensor self = contiguous(self_in), mask = contiguous(mask_in);
  const int64_t n = self.numel();
  const uint8_t* m = reinterpret_cast<const uint8_t*>(mask.data());
  const int64_t nblocks = (n + kBlock - 1) / kBlock;
  std::vector<int64_t> start(nblocks + 1, 0);
  parallel_for(nblocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; blk++) {
      const int64_t s = blk * kBlock, e = std::min(n, s + kBlock);
      int64_t c = 0;
      for (int64_t i = s; i < e; i++) c += m[i] != 0;
      start[blk + 1] = c;
    }
  });
  for (int64_t blk = 0; blk < nblocks; blk++) start[blk + 1] += start[blk];
  Tensor out = empty(DimVec{start[nblocks]}, self.dtype(), self.device());
  if (out.numel() == 0) return out;
  const char* x = self.data();
  char* o = out.data();
  switch (self.itemsize()) {
    case 1:
      compact_typed(reinterpret_cast<const uint8_t*>(x), m, reinterpret_cast<uint8_t*>(o), start, n);
      break;
    case 2:
      compact_typed(reinterpret_cast<const uint16_t*>(x), m, reinterpret_cast<uint16_t*>(o), start, n);
      break;
    case 4:
      compact_typed(reinterpret_cast<const uint32_t*>(x), m, reinterpret_cast<uint32_t*>(o), start, n);
      break;
    case 8:
      compact_typed(reinterpret_cast<const uint64_t*>(x), m, reinterpret_cast<uint64_t*>(o), start, n);
      break;
    default:
      compact_typed(reinterpret_cast<const Bytes16*>(x), m, reinterpret_cast<Bytes16*>(o), start, n);
      break;
  }
  return out;
}

namespace ops {

namespace {

void check_mask(const Tensor& mask, const char* op) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, Runtime, op, " only supports boolean masks, but got mask with dtype ",
              dtype_name(mask.dtype()));
}

// t viewed with shape `sizes` (broadcast: size-1 and missing leading dims get stride 0).
Tensor expand_view(const Tensor& t, const DimVec& sizes) {
  DimVec st(sizes.size(), 0);
  const int64_t lead = sizes.size() - t.dim();
  for (int64_t k = 0; k < t.dim(); k++) st[lead + k] = t.sizes()[k] == sizes[lead + k] ? t.strides()[k] : 0;
  return make_view(t, sizes, st, t.offset());
}

// mask must broadcast to self's shape without changing it (the in-place rule).
void check_mask_fits(const Tensor& self, const Tensor& mask, const char* op) {
  const DimVec b = broadcast_shapes(self.sizes(), mask.sizes());
  EMBER_CHECK(b == self.sizes(), Runtime, op, ": the mask of shape ", mask.sizes(),
              " must be broadcastable to self's shape ", self.sizes());
}

Tensor fill_value(const Tensor& value, ScalarType dtype) {
  EMBER_CHECK(value.dim() == 0, Runtime,
              "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
              " dimension(s).");
  EMBER_CHECK(!is_complex(value.dtype()) || is_complex(dtype), Runtime, "masked_fill_(): cannot fill a ",
              dtype_name(dtype), " tensor with a complex value");
  check_value_fits(value, dtype);
  return value.dtype() == dtype ? value : to_dtype(value, dtype);
}

Tensor masked_select_impl(const Tensor& input, const Tensor& mask) {
  check_mask(mask, "masked_select:");
  const DimVec shape = broadcast_shapes(input.sizes(), mask.sizes());
  Tensor s = expand_view(input, shape), m = expand_view(mask, shape);
  if (shape.size() == 0) {
    s = atleast_1d_view(s);
    m = atleast_1d_view(m);
  }
  EMBER_CHECK(!input.is_meta() && !mask.is_meta(), NotImplemented,
              "masked_select(): the result size depends on the data, so it has no meta version");
  return masked_compact(s, m);
}

void masked_scatter_apply(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_mask(mask, "masked_scatter_");
  EMBER_CHECK(source.dtype() == self.dtype(), Runtime,
              "masked_scatter_: expected self and source to have same dtypes but got ", dtype_name(self.dtype()),
              " and ", dtype_name(source.dtype()));
  check_mask_fits(self, mask, "masked_scatter_");
  if (self.is_meta()) return;
  const Tensor s = atleast_1d_view(self);
  const Tensor m = atleast_1d_view(expand_view(mask, self.sizes()));
  std::vector<Tensor> cols = mask_to_indices(m);
  const int64_t n = cols.empty() ? 0 : cols[0].numel();
  EMBER_CHECK(n <= source.numel(), Runtime, "masked_scatter_: expected source to have at least ", n,
              " elements (the number of true values in mask), but it has ", source.numel());
  if (n == 0) return;
  const Tensor src = contiguous_copy(source);
  advanced_index_put_(s, cols, make_view(src, DimVec{n}, DimVec{1}, src.offset()), false);
}

}  // namespace

Tensor masked_fill(const Tensor& input, const Tensor& mask, const Tensor& value) {
  check_mask(mask, "masked_fill_");
  const Tensor v = fill_value(value, input.dtype());
  if (input.is_meta() || mask.is_meta())
    return empty(broadcast_shapes(input.sizes(), mask.sizes()), input.dtype(), input.device());
  return where(mask, v, input);
}

Tensor masked_fill_(const Tensor& input, const Tensor& mask, const Tensor& value) {
  check_mask(mask, "masked_fill_");
  check_mask_fits(input, mask, "masked_fill_");
  const Tensor v = fill_value(value, input.dtype());
  if (input.is_meta()) return input;
  copy_(input, where(mask, v, input));
  input.bump_version();
  return input;
}

Tensor masked_select(const Tensor& input, const Tensor& mask) { return masked_select_impl(input, mask); }

Tensor masked_select_out(const Tensor& out, const Tensor& input, const Tensor& mask) {
  assert_no_internal_overlap(out, "masked_select");
  assert_no_overlap(out, input, "masked_select");
  assert_no_overlap(out, mask, "masked_select");
  return write_out(out, masked_select_impl(input, mask), "masked_select");
}

Tensor masked_scatter(const Tensor& input, const Tensor& mask, const Tensor& source) {
  const DimVec shape = broadcast_shapes(input.sizes(), mask.sizes());
  Tensor out =
      input.is_meta() ? empty(shape, input.dtype(), input.device()) : contiguous_copy(expand_view(input, shape));
  masked_scatter_apply(out, mask, source);
  return out;
}

Tensor masked_scatter_(const Tensor& input, const Tensor& mask, const Tensor& source) {
  assert_no_internal_overlap(input, "masked_scatter_");
  masked_scatter_apply(input, mask, source);
  return input;
}

}  // namespace ops

}  // namespace ember
