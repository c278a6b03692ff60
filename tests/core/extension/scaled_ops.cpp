// A tiny out-of-tree extension for tests/core/test_cpp_extension.py, built against the installed
// ember headers: scaled_add(x, y, alpha) = x + alpha * y for float32/float64, with a CPU kernel,
// a Meta kernel (shape and dtype only), and a backward formula.
#include <ember/extension.h>

using ember::Tensor;

namespace {

void check_inputs(const Tensor& x, const Tensor& y) {
  EMBER_CHECK(x.sizes() == y.sizes(), Value, "scaled_add: x and y must have the same shape");
  EMBER_CHECK(x.dtype() == y.dtype(), Type, "scaled_add: x and y must have the same dtype");
  EMBER_CHECK(x.dtype() == ember::ScalarType::Float32 || x.dtype() == ember::ScalarType::Float64, Type,
              "scaled_add: expected float32 or float64, got ", ember::dtype_name(x.dtype()));
}

template <class T>
void run(const Tensor& xc, const Tensor& yc, Tensor& out, double alpha) {
  const T* a = xc.data_as<T>();
  const T* b = yc.data_as<T>();
  T* o = out.data_as<T>();
  ember::parallel_for(out.numel(), 1 << 14, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; i++) o[i] = a[i] + T(alpha) * b[i];
  });
}

Tensor scaled_add_cpu(const Tensor& x, const Tensor& y, double alpha) {
  check_inputs(x, y);
  Tensor xc = ember::contiguous(x), yc = ember::contiguous(y);
  Tensor out = ember::empty(x.sizes(), x.dtype(), x.device());
  if (x.dtype() == ember::ScalarType::Float32) run<float>(xc, yc, out, alpha);
  else run<double>(xc, yc, out, alpha);
  return out;
}

Tensor scaled_add_meta(const Tensor& x, const Tensor& y, double) {
  check_inputs(x, y);
  return ember::empty(x.sizes(), x.dtype(), x.device());
}

// sum_sizes(x, dims): the product of the sizes of dims of x, as a plain int (a non-tensor return).
int64_t size_product(const Tensor& x, std::vector<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= x.size(d);
  return p;
}

}  // namespace

EMBER_LIBRARY(scaled, m) {
  m.def("scaled_add(Tensor x, Tensor y, float alpha=2.0) -> Tensor", scaled_add_cpu);
  m.impl("scaled_add", ember::DispatchKey::Meta, scaled_add_meta);
  // d/dx = grad, d/dy = alpha * grad; alpha gets no gradient.
  m.backward("scaled_add", [](const ember::BackwardArgs& a) {
    const Tensor& g = a.grad_outputs[0];
    double alpha = a.inputs[2].to_double();
    Tensor gy = ember::ops::mul(g, ember::wrapped_scalar(ember::Scalar(alpha)));  // a core op
    return std::vector<Tensor>{g, gy, Tensor()};
  });
  m.def("size_product(Tensor x, int[] dims) -> int", size_product);
}
