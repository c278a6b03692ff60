// Argument rules of single ops that are not about dtypes, run before their iterator is built
// (named by `check:` in core/ops/*.yaml).
#pragma once
#include "tensor/factory.h"

namespace ember {

// sub: PyTorch refuses bool operands (tensors or Python bools) and points to ^ / logical_not.
void check_sub_operands(const Tensor& input, const Tensor& other);
// pow: an integer (or bool) tensor raised to a negative Python int is refused, since the result
// would not be an integer; a tensor of negative exponents is allowed (PyTorch's rule).
void check_pow_operands(const Tensor& input, const Tensor& exponent);

}  // namespace ember
