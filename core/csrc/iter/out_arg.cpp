// out= checks, resize and copy shared by the hand-written ops (see iter/out_arg.h).
#include "iter/out_arg.h"

#include "iter/copy.h"
#include "tensor/factory.h"

namespace ember {

void check_out_dtype(const Tensor& out, ScalarType want, const char* op) {
  EMBER_CHECK(out.dtype() == want, Runtime, op, "(): Expected out tensor to have dtype ", dtype_name(want),
              ", but got ", dtype_name(out.dtype()), " instead");
}

Tensor write_out(const Tensor& out, const Tensor& result, const char* op) {
  if (!out.defined()) return result;
  check_out_dtype(out, result.dtype(), op);
  EMBER_CHECK(out.device() == result.device(), Runtime, op, "(): Expected out tensor to be on device ",
              result.device().str(), ", but got ", out.device().str());
  resize_out(out, result.sizes());
  if (!out.is_meta() && !out.is_same(result)) {
    copy_(out, result);
    out.bump_version();
  }
  return out;
}

}  // namespace ember
