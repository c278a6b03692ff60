// conj / conj_physical: complex conjugate; real tensors come back unchanged (the input itself).
// Unlike PyTorch, conj of a complex tensor is a new tensor rather than a lazily conjugated view.
#include "generated/ops/conj.h"

#include "generated/ops/conj_physical.h"
#include "iter/loops.h"

namespace ember::ops {

namespace {

template <class T>
void copy_bytes(const TensorIter& it) {
  unary_kernel<T, T>(it, [](T a) { return a; });
}

void conj_kernel(const TensorIter& it) {
  switch (it.compute_dtype()) {
    case ScalarType::Complex64:
      unary_kernel<complex64, complex64>(it, [](complex64 a) { return std::conj(a); });
      break;
    case ScalarType::Complex128:
      unary_kernel<complex128, complex128>(it, [](complex128 a) { return std::conj(a); });
      break;
    default:  // real dtypes: a plain copy, by element size
      switch (itemsize(it.compute_dtype())) {
        case 1:
          copy_bytes<uint8_t>(it);
          break;
        case 2:
          copy_bytes<uint16_t>(it);
          break;
        case 4:
          copy_bytes<uint32_t>(it);
          break;
        default:
          copy_bytes<uint64_t>(it);
          break;
      }
  }
}

Tensor run(const Tensor& out, bool inplace, const Tensor& input) {
  TensorIter it;
  it.name("conj_physical");
  if (out.defined()) it.output(out, inplace);
  it.input(input).build();
  conj_kernel(it);
  return it.finish();
}

}  // namespace

Tensor conj(const Tensor& input) { return conj_physical(input); }

Tensor conj_physical(const Tensor& input) {
  if (!is_complex(input.dtype())) return input;
  return run(Tensor(), false, input);
}

Tensor conj_physical_(const Tensor& input) {
  if (!is_complex(input.dtype())) return input;
  return run(input, true, input);
}

Tensor conj_physical_out(const Tensor& out, const Tensor& input) { return run(out, false, input); }

}  // namespace ember::ops
