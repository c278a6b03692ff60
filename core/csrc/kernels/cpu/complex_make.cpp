// complex(real, imag) and polar(abs, angle): complex tensors from two real ones of the same
// float32/float64 dtype (complex64/complex128 results), broadcasting as elementwise ops do.
#include "generated/ops/complex.h"
#include "generated/ops/polar.h"
#include "iter/loops.h"

namespace ember::ops {

namespace {

enum class Make { Cartesian, Polar };

Tensor run_make(const char* name, Make kind, const Tensor& out, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dtype() == b.dtype(), Runtime, name, "(): expected both inputs to have the same dtype, got ",
              dtype_name(a.dtype()), " and ", dtype_name(b.dtype()));
  const ScalarType dt = a.dtype();
  EMBER_CHECK(dt == ScalarType::Float32 || dt == ScalarType::Float64, Runtime, name,
              "(): expected both inputs to be float32 or float64 tensors but got ", dtype_name(a.dtype()), " and ",
              dtype_name(b.dtype()));
  const ScalarType ct = to_complex(dt);
  EMBER_CHECK(!out.defined() || out.dtype() == ct, Runtime, name, "(): expected out to have dtype ", dtype_name(ct),
              " but got ", dtype_name(out.dtype()));
  TensorIter it;
  it.name(name).out_dtype(ct);
  if (out.defined()) it.output(out);
  it.input(a).input(b).build();
  auto go = [&](auto zero) {
    using R = decltype(zero);
    using Z = std::complex<R>;
    if (kind == Make::Cartesian)
      binary_kernel<Z, R, R>(it, [](R re, R im) { return Z(re, im); });
    else
      binary_kernel<Z, R, R>(it, [](R r, R t) { return Z(r * std::cos(t), r * std::sin(t)); });
  };
  if (dt == ScalarType::Float32)
    go(float{});
  else
    go(double{});
  return it.finish();
}

}  // namespace

Tensor complex(const Tensor& real, const Tensor& imag) {
  return run_make("complex", Make::Cartesian, Tensor(), real, imag);
}
Tensor complex_out(const Tensor& out, const Tensor& real, const Tensor& imag) {
  return run_make("complex", Make::Cartesian, out, real, imag);
}

Tensor polar(const Tensor& abs, const Tensor& angle) { return run_make("polar", Make::Polar, Tensor(), abs, angle); }
Tensor polar_out(const Tensor& out, const Tensor& abs, const Tensor& angle) {
  return run_make("polar", Make::Polar, out, abs, angle);
}

}  // namespace ember::ops
