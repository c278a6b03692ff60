// where(condition, input, other): elements of input where condition is true, else of other.
// condition must be bool and stays out of promotion; input/other (tensors or Python numbers)
// promote to their common dtype. Selecting is a copy of bytes, so the kernel is instantiated
// per element size, not per dtype.
#include "generated/ops/where.h"
#include "iter/loops.h"
#include "kernels/scalar_value.h"
#include "types/scalar_fits.h"

namespace ember::ops {

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

template <class T>
void select(const TensorIter& it) {
  ternary_kernel<T, bool, T, T>(it, [](bool c, T a, T b) { return c ? a : b; });
}

Tensor run_where(const Tensor& out, const Tensor& condition, const Tensor& input, const Tensor& other) {
  EMBER_CHECK(condition.defined(), Runtime, "where(): expected a condition tensor, got None");
  EMBER_CHECK(condition.dtype() == ScalarType::Bool, Runtime,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              dtype_name(condition.dtype()));
  TensorIter it;
  it.name("where");
  if (out.defined()) it.output(out);
  it.input(condition, /*promote=*/false).input(input).input(other).build();
  // A Python number must fit the result dtype (where(c, uint8_tensor, 300) is refused, not wrapped).
  for (const Tensor* x : {&input, &other})
    if (x->is_wrapped_number()) check_scalar_fits(scalar_value(*x), it.compute_dtype(), false);
  switch (itemsize(it.compute_dtype())) {
    case 1: select<uint8_t>(it); break;
    case 2: select<uint16_t>(it); break;
    case 4: select<uint32_t>(it); break;
    case 8: select<uint64_t>(it); break;
    case 16: select<Bytes16>(it); break;
    default: EMBER_FAIL(Type, "\"where\" is not implemented for dtype ", dtype_name(it.compute_dtype()));
  }
  return it.finish();
}

}  // namespace

Tensor where(const Tensor& condition, const Tensor& input, const Tensor& other) {
  return run_where(Tensor(), condition, input, other);
}

Tensor where_out(const Tensor& out, const Tensor& condition, const Tensor& input, const Tensor& other) {
  return run_where(out, condition, input, other);
}

}  // namespace ember::ops
