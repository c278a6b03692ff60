// Tensor.view(dtype): the same memory read as another dtype. With a different element size the
// last dim (stride 1) holds proportionally more or fewer elements, as in PyTorch.
#include "generated/ops/_view_dtype.h"

namespace ember::ops {

Tensor _view_dtype(const Tensor& input, ScalarType dtype) {
  EMBER_CHECK(dtype != ScalarType::Undefined, Type, "view(): expected a dtype, got None");
  const int64_t from = input.itemsize(), to = itemsize(dtype);
  if (from == to) return make_view(input, input.sizes(), input.strides(), input.offset(), dtype);
  const char* a = dtype_name(input.dtype());
  const char* b = dtype_name(dtype);
  const int64_t nd = input.dim();
  EMBER_CHECK(nd > 0, Runtime, "self.dim() cannot be 0 to view ", a, " as ", b, " (different element sizes)");
  EMBER_CHECK(input.strides()[nd - 1] == 1, Runtime, "self.stride(-1) must be 1 to view ", a, " as ", b,
              " (different element sizes), but got ", input.strides()[nd - 1]);
  DimVec sizes = input.sizes(), strides = input.strides();
  int64_t offset = input.offset();
  if (from > to) {  // each element becomes `r` smaller ones
    const int64_t r = from / to;
    for (int64_t d = 0; d < nd - 1; d++) strides[d] *= r;
    sizes[nd - 1] *= r;
    offset *= r;
  } else {  // every `r` elements become one
    const int64_t r = to / from;
    EMBER_CHECK(sizes[nd - 1] % r == 0, Runtime, "self.size(-1) must be divisible by ", r, " to view ", a, " as ", b,
                " (different element sizes), but got ", sizes[nd - 1]);
    EMBER_CHECK(offset % r == 0, Runtime, "self.storage_offset() must be divisible by ", r, " to view ", a, " as ", b,
                " (different element sizes), but got ", offset);
    for (int64_t d = 0; d < nd - 1; d++)
      EMBER_CHECK(strides[d] % r == 0, Runtime, "self.stride(", d, ") must be divisible by ", r, " to view ", a, " as ",
                  b, " (different element sizes), but got ", strides[d]);
    for (int64_t d = 0; d < nd - 1; d++) strides[d] /= r;
    sizes[nd - 1] /= r;
    offset /= r;
  }
  return make_view(input, sizes, strides, offset, dtype);
}

}  // namespace ember::ops
