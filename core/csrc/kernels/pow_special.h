// pow for floating bases with the exponents PyTorch computes by arithmetic instead of pow (2, 3, -1,
// -2, 0.5, -0.5): x**2 as x*x is what training code writes most, and std::pow took 40 times as long.
// The branches test only the exponent, so for a number exponent (the common case) the compiler hoists
// them out of the element loop. Values stay C's pow's, as a tensor of exponents gets in PyTorch and
// NumPy: for 0.5, +0 at -0 and +inf at -inf, where sqrt gives -0 and NaN (PyTorch and NumPy, on a number
// exponent 0.5, take sqrt's).
#pragma once

#include <cmath>
#include <limits>

#include "kernels/functors.h"

namespace ember::fn {

// sqrt with pow(a, 0.5)'s values at -0 and -inf. The select comes before the sqrt: after it, GCC keeps a
// branch (sqrt may trap) and the loop does not vectorize.
template <class T>
inline T root_as_pow(T a) {
  constexpr T inf = std::numeric_limits<T>::infinity();
  return std::sqrt(a == -inf ? inf : a) + T(0);
}

template <class T>
inline T pow_special(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    // GCC unswitches (and so vectorizes) the first three tests only: the commonest exponents come first
    if (b == T(2)) return a * a;
    if (b == T(3)) return a * a * a;  // x**3 of hand-written tanh GELUs
    if (b == T(0.5)) return root_as_pow(a);
    if (b == T(-0.5)) return T(1) / root_as_pow(a);
    if (b == T(-1)) return T(1) / a;
    if (b == T(-2)) return T(1) / (a * a);
  }
  return fn::pow(a, b);  // qualified: for std::complex, ADL would pick std::pow
}

}  // namespace ember::fn
