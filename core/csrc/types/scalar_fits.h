// Whether a Python number fits a dtype without overflow: the check PyTorch applies when a number
// becomes one element of a given dtype (fill_, full, t[i] = v, a number in where/clamp).
#pragma once
#include "types/dtype.h"
#include "types/scalar.h"

namespace ember {

// True when `v` converts to `dtype` without overflow. Rules (PyTorch's): bool takes anything; a
// complex value needs a zero imaginary part unless dtype is complex; integer dtypes take values in
// range (NaN never; unsigned dtypes also take negative ints down to -max, which wrap); floating
// dtypes take inf and NaN, and finite values in range when `check_float_range` (else they round
// to inf as a cast does). `strict_unsigned` refuses negative values for unsigned dtypes too.
bool scalar_fits(const Scalar& v, ScalarType dtype, bool check_float_range = true, bool strict_unsigned = false);

// Raises RuntimeError "value cannot be converted to type <dtype> without overflow" unless it fits.
void check_scalar_fits(const Scalar& v, ScalarType dtype, bool check_float_range = true);

}  // namespace ember
