// equal(input, other): True when both have the same shape and equal elements (compared in their
// common dtype; NaN is never equal). Different shapes give False, not a broadcast.
#include "generated/ops/equal.h"

#include "generated/ops/eq.h"
#include "iter/copy.h"

namespace ember::ops {

bool equal(const Tensor& input, const Tensor& other) {
  EMBER_CHECK(input.device() == other.device(), Runtime,
              "Cannot compare two tensors on different devices. Got: ", input.device().str(), " and ",
              other.device().str());
  if (input.sizes() != other.sizes()) return false;
  EMBER_CHECK(!input.is_meta(), Runtime, "equal(): meta tensors hold no values to compare");
  const Tensor e = contiguous(eq(input, other));
  const bool* p = e.data_as<bool>();
  for (int64_t i = 0, n = e.numel(); i < n; i++)
    if (!p[i]) return false;
  return true;
}

}  // namespace ember::ops
