// Pointwise convolution as direct products on the input (see conv_pointwise.h).
#include "kernels/cpu/conv_pointwise.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "device/parallel.h"
#include "iter/copy.h"
#include "kernels/blas.h"
#include "tensor/factory.h"

namespace ember::conv::pointwise {

namespace {

constexpr int64_t kWide = 128;  // conv_chunked.h's threshold: narrower planes are batched across images there

// EMBER_CONV_POINTWISE=0 sends these convolutions down the column path, read at every call (not once) so
// a benchmark can time both paths in one process; a getenv is nothing beside a convolution.
bool enabled() {
  const char* v = std::getenv("EMBER_CONV_POINTWISE");
  return !(v && std::strcmp(v, "0") == 0);
}

}  // namespace

bool serves(const Plan& p, const Tensor& input, bool transposed) {
  const Geometry& g = p.g;
  const ScalarType dt = input.dtype();
  if (transposed || !enabled() || g.out_size() < kWide || input.device().type != DeviceType::CPU) return false;
  if (dt != ScalarType::Float32 && dt != ScalarType::Float64) return false;
  for (int d = 0; d < 3; d++)
    if (g.k[d] != 1 || g.stride[d] != 1 || g.pad[d] != 0) return false;
  const int64_t cg = p.in_ch / p.groups, og = p.out_ch / p.groups;
  return blas::fits_blas(og) && blas::fits_blas(cg) && blas::fits_blas(g.out_size());
}

void forward(const Plan& p, const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out) {
  const Tensor x = contiguous(input), w = contiguous(weight);
  const Tensor b = bias.defined() ? contiguous_as(bias, input.dtype()) : Tensor();
  const int64_t L = p.g.out_size(), cg = p.in_ch / p.groups, og = p.out_ch / p.groups;
  const int64_t items = p.batch * p.groups;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T* px = x.data_as<T>();
    const T* pw = w.data_as<T>();
    const T* pb = b.defined() ? b.data_as<T>() : nullptr;
    T* py = out.data_as<T>();
    auto product = [&](int64_t i) {
      const int64_t n = i / p.groups, gi = i % p.groups;
      T* y = py + (n * p.out_ch + gi * og) * L;
      blas::gemm<T>(blas::Op::N, blas::Op::N, og, L, cg, T(1), pw + gi * og * cg, cg, px + (n * p.in_ch + gi * cg) * L,
                    L, T(0), y, L);
      if (pb)  // while the image's output is still in cache
        for (int64_t o = 0; o < og; o++) {
          const T add = pb[gi * og + o];
          T* row = y + o * L;
          for (int64_t j = 0; j < L; j++) row[j] += add;
        }
    };
    // Enough items: whole products per thread (a product inside the parallel region runs on its thread);
    // otherwise one at a time, each split across the threads by blas::gemm.
    if (get_num_threads() > 1 && items >= get_num_threads()) {
      parallel_for(items, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; i++) product(i);
      });
    } else {
      for (int64_t i = 0; i < items; i++) product(i);
    }
  };
  if (input.dtype() == ScalarType::Float32)
    run(float{});
  else
    run(double{});
}

}  // namespace ember::conv::pointwise
