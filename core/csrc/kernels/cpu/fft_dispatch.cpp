// kernels/fft_backend.h's entry points: the AVX2 + FMA ducc0 build when the CPU has both, else the
// base one (chosen once; EMBER_FFT_NO_AVX2=1 in the environment forces the base one, for tests).
#include <cstdlib>
#include <cstring>

#include "device/cpu_features.h"
#include "kernels/cpu/fft_ducc_variants.h"

namespace ember::fft {

#if defined(EMBER_FFT_HAVE_AVX2)
namespace {
bool use_avx2() {
  static const bool use = [] {
    const char* off = std::getenv("EMBER_FFT_NO_AVX2");
    return cpu_has_avx2() && !(off && std::strcmp(off, "1") == 0);
  }();
  return use;
}
}  // namespace

#define EMBER_FFT_PICK(fn)         \
  if (use_avx2()) return avx2::fn; \
  return base::fn
#else
#define EMBER_FFT_PICK(fn) return base::fn
#endif

#define EMBER_FFT_DEFINE(R)                                                                                          \
  void c2c(const View& in, const View& out, const std::vector<size_t>& axes, bool forward, R fct, size_t nthreads) { \
    EMBER_FFT_PICK(c2c(in, out, axes, forward, fct, nthreads));                                                      \
  }                                                                                                                  \
  void r2c(const View& in, const View& out, const std::vector<size_t>& axes, bool forward, R fct, size_t nthreads) { \
    EMBER_FFT_PICK(r2c(in, out, axes, forward, fct, nthreads));                                                      \
  }                                                                                                                  \
  void c2r(const View& in, const View& out, const std::vector<size_t>& axes, bool forward, R fct, size_t nthreads) { \
    EMBER_FFT_PICK(c2r(in, out, axes, forward, fct, nthreads));                                                      \
  }
EMBER_FFT_DEFINE(float)
EMBER_FFT_DEFINE(double)

}  // namespace ember::fft
