// Filling a float tensor from a per-element draw: each element gets a Philox block of its own (four words, see
// rng::ElementStream), so rejection samplers (poisson, _standard_gamma, binomial) may use as many as they need
// and every element's value depends only on its position and the generator's state.
#pragma once

#include <type_traits>

#include "kernels/convert.h"
#include "kernels/cpu/random_draw.h"

namespace ember::rng {

// out (a floating dtype) from draw(i, stream) -> double, where i is the element's index in logical order.
template <class F>
void fill_per_element(const Tensor& out, GeneratorImpl& g, const F& draw) {
  const Stream s = Stream::reserve(g, out.numel() * 4);  // one block per element
  visit_dtype(out.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      fill_logical<T>(out, [&](int64_t first, int64_t m, T* dst) {
        uint32_t w[kChunk * 4];
        s.words(first * 4, m * 4, w);
        for (int64_t k = 0; k < m; k++) {
          ElementStream es(w + 4 * k);
          dst[k] = convert<T>(draw(first + k, es));
        }
      });
    }
  });
  out.bump_version();
}

}  // namespace ember::rng
