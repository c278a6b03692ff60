// The FFT kernels _fft_c2c, _fft_r2c and _fft_c2r (core/ops/fft.yaml): argument checks, output
// allocation and the normalization factor, then one ducc0 call (kernels/fft_backend.h) over all dims.
#include <cmath>
#include <vector>

#include "device/parallel.h"
#include "generated/ops/_fft_c2c.h"
#include "generated/ops/_fft_c2r.h"
#include "generated/ops/_fft_r2c.h"
#include "iter/copy.h"
#include "iter/out_arg.h"
#include "kernels/fft_backend.h"

namespace ember::ops {

namespace {

// Below this many output elements a second thread costs more than it saves.
constexpr int64_t kThreadFrom = 1 << 15;

// dim wrapped against t and checked unique, as ducc0 axes.
std::vector<size_t> fft_axes(const Tensor& t, const DimVec& dim, const char* name, bool need_one) {
  EMBER_CHECK(!need_one || !dim.empty(), Runtime, name, ": expects at least one dim to transform");
  std::vector<size_t> axes;
  for (int64_t d : dim) {
    const size_t a = size_t(wrap_dim(d, t.dim()));
    for (size_t b : axes) EMBER_CHECK(a != b, Runtime, name, ": dims must be unique, got dim ", d, " twice");
    axes.push_back(a);
  }
  return axes;
}

fft::View view_of(const Tensor& t) {
  fft::View v{t.data(), {}, {}};
  for (int64_t i = 0; i < t.dim(); i++) {
    v.shape.push_back(size_t(t.sizes()[i]));
    v.strides.push_back(std::ptrdiff_t(t.strides()[i]));
  }
  return v;
}

// The scale for `normalization` over a signal of n points.
double norm_factor(int64_t normalization, double n, const char* name) {
  EMBER_CHECK(normalization >= 0 && normalization <= 2, Runtime, name,
              ": normalization must be 0 (none), 1 (1/sqrt(n)) or 2 (1/n), got ", normalization);
  return normalization == 0 ? 1.0 : normalization == 1 ? 1.0 / std::sqrt(n) : 1.0 / n;
}

double signal_size(const Tensor& t, const std::vector<size_t>& axes) {
  double n = 1;
  for (size_t a : axes) n *= double(t.sizes()[int64_t(a)]);
  return n;
}

// Threads for one ducc0 call (on ember's worker pool, fft_ducc_pool.h): ember.get_num_threads()
// for big batched transforms, which ducc0 splits line by line. A single 1-D line runs on one: ducc0
// can only split inside that transform, and on this 2-core machine that measured slower than one
// thread (rfft of 10^6 float32: 5.2-6.3 ms on one, 6.9-7.9 ms on two).
size_t fft_threads(const Tensor& out, const std::vector<size_t>& axes) {
  if (out.numel() < kThreadFrom || in_parallel_region()) return 1;
  if (axes.size() == 1 && out.numel() == out.sizes()[int64_t(axes[0])]) return 1;
  return size_t(get_num_threads());
}

// Calls f(real zero) with the precision of dtype (float32/complex64 -> float, else double).
template <class F>
void with_precision(ScalarType dtype, const F& f) {
  if (dtype == ScalarType::Float32 || dtype == ScalarType::Complex64)
    f(float(0));
  else
    f(double(0));
}

void check_signal(const Tensor& t, const std::vector<size_t>& axes, const char* name) {
  for (size_t a : axes)
    EMBER_CHECK(t.sizes()[int64_t(a)] >= 1, Runtime, name, ": invalid number of data points (", t.sizes()[int64_t(a)],
                ") along dim ", a);
}

// In-place c2c of the complex tensor `out` (dense, allocated here).
void c2c_inplace(const Tensor& out, const std::vector<size_t>& axes, bool forward, double fct) {
  const fft::View v = view_of(out);
  with_precision(out.dtype(), [&](auto r) {
    using R = decltype(r);
    fft::c2c(v, v, axes, forward, R(fct), fft_threads(out, axes));
  });
}

}  // namespace

Tensor _fft_c2c(const Tensor& input, const DimVec& dim, int64_t normalization, bool is_forward) {
  EMBER_CHECK(is_complex(input.dtype()), Type, "_fft_c2c: expects a complex input tensor, but got ",
              dtype_name(input.dtype()));
  const auto axes = fft_axes(input, dim, "_fft_c2c", false);
  const double fct = norm_factor(normalization, signal_size(input, axes), "_fft_c2c");
  Tensor out = empty(input.sizes(), input.dtype(), input.device());
  if (out.is_meta() || out.numel() == 0) return out;
  check_signal(input, axes, "_fft_c2c");
  if (axes.empty()) {  // the empty transform: a copy
    copy_(out, input);
    return out;
  }
  with_precision(input.dtype(), [&](auto r) {
    using R = decltype(r);
    fft::c2c(view_of(input), view_of(out), axes, is_forward, R(fct), fft_threads(out, axes));
  });
  return out;
}

Tensor _fft_r2c(const Tensor& input, const DimVec& dim, int64_t normalization, bool onesided) {
  EMBER_CHECK(input.dtype() == ScalarType::Float32 || input.dtype() == ScalarType::Float64, Type,
              "_fft_r2c: expects a float32 or float64 input tensor, but got ", dtype_name(input.dtype()));
  const auto axes = fft_axes(input, dim, "_fft_r2c", true);
  const double fct = norm_factor(normalization, signal_size(input, axes), "_fft_r2c");
  const ScalarType ctype = to_complex(input.dtype());
  DimVec sizes = input.sizes();
  if (onesided) sizes[int64_t(axes.back())] = sizes[int64_t(axes.back())] / 2 + 1;
  Tensor out = empty(sizes, ctype, input.device());
  if (out.is_meta() || out.numel() == 0) return out;
  check_signal(input, axes, "_fft_r2c");
  if (!onesided) {  // the full spectrum: the input made complex, transformed in place
    copy_(out, input);
    c2c_inplace(out, axes, true, fct);
    return out;
  }
  with_precision(input.dtype(), [&](auto r) {
    using R = decltype(r);
    fft::r2c(view_of(input), view_of(out), axes, true, R(fct), fft_threads(out, axes));
  });
  return out;
}

Tensor _fft_c2r(const Tensor& input, const DimVec& dim, int64_t normalization, int64_t last_dim_size) {
  EMBER_CHECK(is_complex(input.dtype()), Type, "_fft_c2r: expects a complex input tensor, but got ",
              dtype_name(input.dtype()));
  const auto axes = fft_axes(input, dim, "_fft_c2r", true);
  EMBER_CHECK(last_dim_size >= 1, Runtime, "_fft_c2r: invalid number of data points (", last_dim_size, ") specified");
  const int64_t last = int64_t(axes.back());
  EMBER_CHECK(input.sizes()[last] == last_dim_size / 2 + 1, Runtime, "_fft_c2r: an output of ", last_dim_size,
              " points along dim ", last, " needs ", last_dim_size / 2 + 1, " input bins there, got ",
              input.sizes()[last]);
  DimVec sizes = input.sizes();
  sizes[last] = last_dim_size;
  Tensor out = empty(sizes, to_real(input.dtype()), input.device());
  const double fct = norm_factor(normalization, signal_size(out, axes), "_fft_c2r");
  if (out.is_meta() || out.numel() == 0) return out;
  check_signal(out, axes, "_fft_c2r");
  with_precision(input.dtype(), [&](auto r) {
    using R = decltype(r);
    fft::c2r(view_of(input), view_of(out), axes, false, R(fct), fft_threads(out, axes));
  });
  return out;
}

// out=: the result computed apart, then checked against out (dtype), resized and copied.
Tensor _fft_c2c_out(const Tensor& out, const Tensor& input, const DimVec& dim, int64_t normalization, bool is_forward) {
  return write_out(out, _fft_c2c(input, dim, normalization, is_forward), "_fft_c2c");
}

Tensor _fft_r2c_out(const Tensor& out, const Tensor& input, const DimVec& dim, int64_t normalization, bool onesided) {
  return write_out(out, _fft_r2c(input, dim, normalization, onesided), "_fft_r2c");
}

Tensor _fft_c2r_out(const Tensor& out, const Tensor& input, const DimVec& dim, int64_t normalization,
                    int64_t last_dim_size) {
  return write_out(out, _fft_c2r(input, dim, normalization, last_dim_size), "_fft_c2r");
}

}  // namespace ember::ops
