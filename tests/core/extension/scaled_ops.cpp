// A tiny out-of-tree extension for tests/core/test_cpp_extension.py, built against the installed
// ember headers: scaled_add(x, y, alpha) = x + alpha * y for float32/float64, with a CPU kernel,
// a Meta kernel (shape and dtype only), and a backward formula; and a generator implemented here
// (a keyed SplitMix64 stream) handed to Python through the op table, as embercsprng does.
#include <ember/extension.h>

#include <cstring>

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
  if (x.dtype() == ember::ScalarType::Float32)
    run<float>(xc, yc, out, alpha);
  else
    run<double>(xc, yc, out, alpha);
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

uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Not a good generator: just enough to show that another library can implement the interface.
class SplitMixGenerator : public ember::GeneratorImpl {
 public:
  explicit SplitMixGenerator(uint64_t key) : GeneratorImpl(ember::Device()), key_(key), seed_(key) {}
  void fill_blocks(uint64_t first, int64_t n, uint32_t (*out)[4]) const override {
    for (int64_t i = 0; i < n; i++) {
      uint64_t a = splitmix64(key_ ^ splitmix64(2 * (first + i))),
               b = splitmix64(key_ ^ splitmix64(2 * (first + i) + 1));
      out[i][0] = uint32_t(a), out[i][1] = uint32_t(a >> 32), out[i][2] = uint32_t(b), out[i][3] = uint32_t(b >> 32);
    }
  }
  const char* name() const override { return "splitmix64-test"; }
  uint64_t initial_seed() const override { return seed_; }

 protected:
  void reseed(uint64_t seed) override { key_ = seed_ = seed; }
  size_t key_state_size() const override { return 8; }
  void key_state(uint8_t* out) const override { std::memcpy(out, &key_, 8); }
  void set_key_state(const uint8_t* data) override { std::memcpy(&key_, data, 8); }
  ember::Generator clone_impl() const override { return ember::Generator(new SplitMixGenerator(key_)); }

 private:
  uint64_t key_, seed_;
};

Tensor halved(const Tensor& x) { return ember::ops::mul(x, ember::wrapped_scalar(ember::Scalar(0.5))); }

ember::Generator splitmix_generator(int64_t key) { return ember::Generator(new SplitMixGenerator(uint64_t(key))); }

}  // namespace

EMBER_LIBRARY(scaled, m) {
  m.def("scaled_add(Tensor x, Tensor y, float alpha=2.0) -> Tensor", scaled_add_cpu);
  m.impl("scaled_add", ember::DispatchKey::Meta, scaled_add_meta);
  // d/dx = grad, d/dy = alpha * grad; alpha gets no gradient. ember::ad ops are recorded, so the
  // formula is itself differentiable (double backward, forward-mode AD).
  m.backward("scaled_add", [](const ember::BackwardArgs& a) {
    const Tensor& g = a.grad_outputs[0];
    double alpha = a.inputs[2].to_double();
    Tensor gy = ember::ad::mul(g, ember::wrapped_scalar(ember::Scalar(alpha)));  // a core op, recorded
    return std::vector<Tensor>{g, gy, Tensor()};
  });
  // halved(x) = x / 2 with a formula of plain (unrecorded) ops: fine for first derivatives, refused
  // when the gradient itself must be differentiable.
  m.def("halved(Tensor x) -> Tensor", halved);
  m.backward("halved", [](const ember::BackwardArgs& a) {
    return std::vector<Tensor>{ember::ops::mul(a.grad_outputs[0], ember::wrapped_scalar(ember::Scalar(0.5)))};
  });
  m.def("size_product(Tensor x, int[] dims) -> int", size_product);
  m.def("splitmix_generator(int key) -> Generator", splitmix_generator);
}
