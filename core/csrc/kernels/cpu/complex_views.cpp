// real / imag: views of a complex tensor's real or imaginary parts. The view has the real dtype,
// so every element stride doubles and the offset points at the first part (+1 for imag).
#include "generated/ops/imag.h"
#include "generated/ops/real.h"

namespace ember::ops {

namespace {
Tensor part_view(const Tensor& t, int64_t part) {
  DimVec strides = t.strides();
  for (auto& s : strides) s *= 2;
  return make_view(t, t.sizes(), strides, t.offset() * 2 + part, to_real(t.dtype()));
}
}  // namespace

Tensor real(const Tensor& input) {
  if (!is_complex(input.dtype())) return input;  // real of a real tensor is the tensor itself
  return part_view(input, 0);
}

Tensor imag(const Tensor& input) {
  EMBER_CHECK(is_complex(input.dtype()), Runtime, "imag is not implemented for tensors with non-complex dtypes.");
  return part_view(input, 1);
}

}  // namespace ember::ops
