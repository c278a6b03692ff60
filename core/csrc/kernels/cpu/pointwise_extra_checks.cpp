// Argument checks of core/ops/pointwise_extra.yaml (see kernels/pointwise_extra_checks.h).
#include "kernels/pointwise_extra_checks.h"

namespace ember {

void check_heaviside_dtypes(const Tensor& input, const Tensor& values) {
  EMBER_CHECK(input.dtype() == values.dtype(), Runtime,
              "heaviside is not yet implemented for tensors with different dtypes.");
}

void check_addcdiv_operands(const Tensor& /*input*/, const Tensor& tensor1, const Tensor& tensor2) {
  const bool integral = is_integral(tensor1.dtype(), true) && is_integral(tensor2.dtype(), true);
  EMBER_CHECK(!integral, Runtime,
              "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
              "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
              "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + "
              "value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
              "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
}

}  // namespace ember
