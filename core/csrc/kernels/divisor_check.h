// Integer division by zero must raise, not trap: ops check the divisor before their kernel runs.
#pragma once
#include "iter/tensor_iter.h"

namespace ember {

// Raises ZeroDivisionError (also a RuntimeError) when the iterator computes in an integer dtype
// and its second input holds a zero.
void check_int_divisor(const TensorIter& it);

}  // namespace ember
