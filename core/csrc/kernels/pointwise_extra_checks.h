// Argument rules of the ops in core/ops/pointwise_extra.yaml (named by their `check:`).
#pragma once
#include "tensor/factory.h"

namespace ember {

// heaviside: PyTorch does not promote; input and values must have one dtype.
void check_heaviside_dtypes(const Tensor& input, const Tensor& values);
// addcdiv: integer tensor1 / tensor2 (once truncating) is refused with PyTorch's message.
void check_addcdiv_operands(const Tensor& input, const Tensor& tensor1, const Tensor& tensor2);

}  // namespace ember
