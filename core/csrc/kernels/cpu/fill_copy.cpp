// fill / fill_ and copy_ (core/ops/inplace.yaml): one value, or another tensor, written into every
// element of a tensor.
#include <algorithm>

#include "generated/ops/copy.h"
#include "generated/ops/fill.h"
#include "iter/copy.h"
#include "kernels/layout.h"
#include "kernels/scalar_value.h"
#include "types/scalar_fits.h"

namespace ember::ops {

namespace {

// The value to fill with: a Python number must fit `dtype`; a tensor must be 0-dim.
Scalar fill_value(const Tensor& value, ScalarType dtype) {
  EMBER_CHECK(value.dim() == 0, Runtime, "fill_ only supports 0-dimension value tensor but got tensor with ",
              value.dim(), " dimensions.");
  EMBER_CHECK(!value.is_meta(), Runtime, "fill_(): the value is a meta tensor, which has no data to fill with");
  const Scalar s = scalar_value(value);
  if (value.is_wrapped_number()) check_scalar_fits(s, dtype);
  return s;
}

// Each memory location of t once: its broadcast dims (stride 0) cut to one element.
Tensor distinct_elements(const Tensor& t) {
  DimVec sizes = t.sizes();
  for (int64_t d = 0; d < t.dim(); d++)
    if (t.strides()[d] == 0) sizes[d] = std::min<int64_t>(sizes[d], 1);
  return make_view(t, sizes, t.strides(), t.offset());
}

}  // namespace

Tensor fill_(const Tensor& input, const Tensor& value) {
  if (input.is_meta()) {
    EMBER_CHECK(value.dim() == 0, Runtime, "fill_ only supports 0-dimension value tensor but got tensor with ",
                value.dim(), " dimensions.");
    return input;
  }
  ember::fill_(distinct_elements(input), fill_value(value, input.dtype()));
  return input;
}

Tensor fill(const Tensor& input, const Tensor& value) {
  Tensor out = empty_preserve(input);
  return fill_(out, value);
}

Tensor copy_(const Tensor& input, const Tensor& src, bool /*non_blocking*/) {
  EMBER_CHECK(!src.is_meta() || input.is_meta(), NotImplemented, "Cannot copy out of meta tensor; no data!");
  ember::copy_(input, src);
  return input;
}

}  // namespace ember::ops
