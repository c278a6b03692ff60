// lfilter's recursive (IIR) half: per row, a[0] * y[n] = x[n] - sum_{k>=1} a[k] * y[n - k], zero initial
// state, one filter per channel. The FIR half (b) is a grouped conv1d in Python. Backward: the input's
// gradient is the same filter run backwards in time over the output's gradient (the adjoint of a causal
// LTI filter); a[k]'s is minus that adjoint correlated with y delayed by k, summed over the batch.
#include <ember/extension.h>

#include <algorithm>
#include <cstring>

namespace emberaudio {

namespace {

using ember::Tensor;

// One row, read and written from its end when `backwards` (time reversed).
template <class T>
void iir_row(const T* x, T* y, const T* a, int64_t order, int64_t len, bool backwards) {
  const int64_t step = backwards ? -1 : 1, first = backwards ? len - 1 : 0;
  for (int64_t n = 0; n < len; n++) {
    const int64_t at = first + step * n;
    T acc = x[at];
    const int64_t taps = std::min(order - 1, n);
    for (int64_t k = 1; k <= taps; k++) acc -= a[k] * y[at - step * k];
    y[at] = acc / a[0];
  }
}

// x: (batch, channels, time); a: (channels, order). Rows run in parallel.
template <class T>
void iir_all(const Tensor& x, const Tensor& a, Tensor& y, bool backwards) {
  const int64_t channels = x.size(1), len = x.size(2), order = a.size(1), rows = x.size(0) * channels;
  const T* xs = x.data_as<T>();
  const T* as = a.data_as<T>();
  T* ys = y.data_as<T>();
  ember::parallel_for(rows, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; r++)
      iir_row(xs + r * len, ys + r * len, as + (r % channels) * order, order, len, backwards);
  });
}

void check_iir(const Tensor& x, const Tensor& a) {
  EMBER_CHECK(x.device().type == ember::DeviceType::CPU && a.device().type == ember::DeviceType::CPU, Value,
              "lfilter: waveform and coefficients must be CPU tensors");
  EMBER_CHECK(x.dtype() == ember::ScalarType::Float32 || x.dtype() == ember::ScalarType::Float64, Type,
              "lfilter: waveform must be float32 or float64, got ", ember::dtype_name(x.dtype()));
  EMBER_CHECK(a.dtype() == x.dtype(), Type, "lfilter: a_coeffs must have the waveform's dtype (",
              ember::dtype_name(x.dtype()), "), got ", ember::dtype_name(a.dtype()));
  EMBER_CHECK(x.dim() == 3, Runtime, "lfilter: waveform must be (batch, channels, time), got ", x.dim(), "-d");
  EMBER_CHECK(a.dim() == 2 && a.size(0) == x.size(1) && a.size(1) > 0, Runtime,
              "lfilter: a_coeffs must be (channels, order) with channels = ", x.size(1), ", got shape ", a.sizes());
}

Tensor run_iir(const Tensor& waveform, const Tensor& a_coeffs, bool backwards) {
  const Tensor x = ember::contiguous(waveform), a = ember::contiguous(a_coeffs);
  Tensor y = ember::empty(x.sizes(), x.dtype());
  if (x.numel() == 0) return y;
  if (x.dtype() == ember::ScalarType::Float32)
    iir_all<float>(x, a, y, backwards);
  else
    iir_all<double>(x, a, y, backwards);
  return y;
}

Tensor lfilter_iir(const Tensor& waveform, const Tensor& a_coeffs) {
  check_iir(waveform, a_coeffs);
  return run_iir(waveform, a_coeffs, false);
}

// With A the lower-triangular Toeplitz matrix of a (A y = x), dy/da[k] = -A^-1 (y delayed by k), so
// dL/da[c, k] = -sum_{b, n} adj[b, c, n] * y[b, c, n - k], adj = A^-T g (k = 0 included: a[0] scales y).
template <class T>
void coeff_grad(const Tensor& adj, const Tensor& y, int64_t order, Tensor& da) {
  const int64_t batch = y.size(0), channels = y.size(1), len = y.size(2);
  const T* g = adj.data_as<T>();
  const T* ys = y.data_as<T>();
  T* d = da.data_as<T>();
  ember::parallel_for(channels, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; c++)
      for (int64_t k = 0; k < order; k++) {
        T sum = 0;
        for (int64_t b = 0; b < batch; b++) {
          const T* gr = g + (b * channels + c) * len;
          const T* yr = ys + (b * channels + c) * len;
          for (int64_t n = k; n < len; n++) sum += gr[n] * yr[n - k];
        }
        d[c * order + k] = -sum;
      }
  });
}

std::vector<Tensor> lfilter_iir_backward(const ember::BackwardArgs& args) {
  const Tensor a = ember::contiguous(args.inputs[1].to_tensor());
  const Tensor y = ember::contiguous(args.outputs[0]);
  const Tensor adj = run_iir(ember::contiguous_as(args.grad_outputs[0], y.dtype()), a, true);
  Tensor da = ember::empty(a.sizes(), a.dtype());
  if (y.numel() == 0) {
    std::memset(da.data(), 0, size_t(da.numel() * da.itemsize()));
  } else if (y.dtype() == ember::ScalarType::Float32) {
    coeff_grad<float>(adj, y, a.size(1), da);
  } else {
    coeff_grad<double>(adj, y, a.size(1), da);
  }
  return {adj, da};
}

}  // namespace

}  // namespace emberaudio

EMBER_LIBRARY(audio, m) {
  m.def("_lfilter_iir(Tensor waveform, Tensor a_coeffs) -> Tensor", emberaudio::lfilter_iir);
  m.backward("_lfilter_iir", emberaudio::lfilter_iir_backward);
}
