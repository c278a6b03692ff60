// Shared rules of the sort family's hand-written ops: out= through kernels/out_arg.h, and real
// dtypes only.
#pragma once
#include "kernels/copy.h"
#include "kernels/out_arg.h"

namespace ember::sorting {

// The dtype rule of the sort family: real dtypes only (complex numbers have no order).
inline void check_real(const Tensor& t, const char* op) {
  EMBER_CHECK(!is_complex(t.dtype()), Type, "\"", op, "\" is not implemented for dtype ", dtype_name(t.dtype()),
              " (complex numbers are not ordered)");
}

}  // namespace ember::sorting
