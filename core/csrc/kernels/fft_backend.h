// The engine behind the fft ops: ducc0's c2c / r2c / c2r transforms over strided arrays, for float
// and double. Only kernels/cpu/fft_ducc_*.cpp include ducc0; everything else sees this interface.
#pragma once
#include <complex>
#include <cstddef>
#include <vector>

namespace ember::fft {

// A strided array: sizes and strides counted in elements of its own type.
struct View {
  void* data;
  std::vector<size_t> shape;
  std::vector<std::ptrdiff_t> strides;
};

// out = fct * transform of in over `axes`; forward is the e^{-i...} direction; fct's type picks the
// precision (in/out hold that real type or its complex). r2c and c2r do the half spectrum along
// axes.back() (c2r reads out.shape[axes.back()] / 2 + 1 entries there).
#define EMBER_FFT_DECLARE(R)                                                                                        \
  void c2c(const View& in, const View& out, const std::vector<size_t>& axes, bool forward, R fct, size_t nthreads); \
  void r2c(const View& in, const View& out, const std::vector<size_t>& axes, bool forward, R fct, size_t nthreads); \
  void c2r(const View& in, const View& out, const std::vector<size_t>& axes, bool forward, R fct, size_t nthreads);
EMBER_FFT_DECLARE(float)
EMBER_FFT_DECLARE(double)
#undef EMBER_FFT_DECLARE

}  // namespace ember::fft
