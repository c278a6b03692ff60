// Argument rules of single ops that are not about dtypes, run before their iterator is built
// (named by `check:` in core/ops/*.yaml), or after it, to see the result's dtype (`iter_check:`).
#pragma once
#include "iter/tensor_iter.h"
#include "tensor/factory.h"

namespace ember {

// sub: PyTorch refuses bool operands (tensors or Python bools) and points to ^ / logical_not.
void check_sub_operands(const Tensor& input, const Tensor& other);
// pow: an integer (or bool) tensor raised to a negative Python int is refused, since the result
// would not be an integer; a tensor of negative exponents is allowed (PyTorch's rule). Runs
// check_pow_exponent_fits first.
void check_pow_operands(const Tensor& input, const Tensor& exponent);
// pow: a Python number exponent must fit the tensor's dtype where the result keeps it (pow(int8, 300)).
void check_pow_exponent_fits(const Tensor& input, const Tensor& exponent);
// add/sub: alpha must fit the result's dtype, as in PyTorch: not floating for an integral (or bool)
// result, where it would be truncated; not complex for a real one; bool only for a bool one.
void check_alpha(const TensorIter& it, const Scalar& alpha);
// threshold: the threshold and the replacement value must fit the tensor's dtype (PyTorch refuses
// threshold(int32, 2**31, ...), a NaN for an integer tensor, and 1e300 for float32).
void check_threshold_args(const TensorIter& it, double threshold, double value);
// hardtanh: the limits must fit the tensor's dtype, and be non-negative for uint8 (PyTorch's messages).
void check_hardtanh_args(const TensorIter& it, double min_val, double max_val);

}  // namespace ember
