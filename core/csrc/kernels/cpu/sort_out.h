// Shared rules of the sort family's hand-written ops: out= through iter/out_arg.h, and real
// dtypes only.
#pragma once
#include "iter/copy.h"
#include "iter/out_arg.h"

namespace ember::sorting {

// The dtype rule of the sort family: real dtypes only (complex numbers have no order).
inline void check_real(const Tensor& t, const char* op) {
  EMBER_CHECK(!is_complex(t.dtype()), Type, "\"", op, "\" is not implemented for dtype ", dtype_name(t.dtype()),
              " (complex numbers are not ordered)");
}

}  // namespace ember::sorting
