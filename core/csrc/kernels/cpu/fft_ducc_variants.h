// The ducc0 builds behind kernels/fft_backend.h: base (the build's own flags) and, on x86-64, avx2
// (AVX2 + FMA, used when the CPU has them); fft_dispatch.cpp picks one per call.
#pragma once
#include "kernels/fft_backend.h"

#define EMBER_FFT_DECLARE(R)                                                                                        \
  void c2c(const View& in, const View& out, const std::vector<size_t>& axes, bool forward, R fct, size_t nthreads); \
  void r2c(const View& in, const View& out, const std::vector<size_t>& axes, bool forward, R fct, size_t nthreads); \
  void c2r(const View& in, const View& out, const std::vector<size_t>& axes, bool forward, R fct, size_t nthreads);

namespace ember::fft::base {
EMBER_FFT_DECLARE(float)
EMBER_FFT_DECLARE(double)
}  // namespace ember::fft::base

#if defined(__x86_64__)
#define EMBER_FFT_HAVE_AVX2 1
namespace ember::fft::avx2 {
EMBER_FFT_DECLARE(float)
EMBER_FFT_DECLARE(double)
}  // namespace ember::fft::avx2
#endif
#undef EMBER_FFT_DECLARE
