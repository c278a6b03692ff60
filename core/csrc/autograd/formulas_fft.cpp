// Backward helpers of the FFT kernels (see formulas_fft.h).
#include <type_traits>

#include "autograd/formulas.h"

namespace ember::ad {

Tensor fft_r2c_backward(const Tensor& grad, const DimVec& dim, int64_t normalization, bool onesided,
                        const DimVec& input_sizes) {
  Tensor full = grad;
  const int64_t last = wrap_dim(dim[dim.size() - 1], int64_t(input_sizes.size()));
  const int64_t missing = input_sizes[last] - grad.sizes()[last];
  if (onesided && missing > 0) {
    DimVec zero_sizes = grad.sizes();
    zero_sizes[last] = missing;
    full = cat({grad, zeros(zero_sizes, grad.dtype(), grad.device(), false)}, last);
  }
  return real(_fft_c2c(full, dim, normalization, false));
}

Tensor fft_c2r_backward(const Tensor& grad, const DimVec& dim, int64_t normalization) {
  const Tensor half = _fft_r2c(grad, dim, normalization, true);
  const int64_t last = wrap_dim(dim[dim.size() - 1], grad.dim());
  const int64_t bins = half.sizes()[last], doubled = grad.sizes()[last] - bins;
  if (doubled <= 0) return half;
  // Weights 1, 2 (doubled times), then 1 for an even length's last bin, shaped to broadcast along last.
  DimVec wsizes(size_t(grad.dim()), 1);
  wsizes[last] = bins;
  Tensor w = empty(DimVec{bins}, grad.dtype(), grad.device());
  if (!w.is_meta())
    visit_dtype(grad.dtype(), [&](auto z) {
      using T = decltype(z);
      if constexpr (std::is_floating_point_v<T>) {
        T* p = w.data_as<T>();
        for (int64_t i = 0; i < bins; i++) p[i] = (i >= 1 && i <= doubled) ? T(2) : T(1);
      }
    });
  return half * reshape(w, wsizes);
}

}  // namespace ember::ad
